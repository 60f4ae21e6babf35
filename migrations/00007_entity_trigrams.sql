-- Entity name trigrams by scope: a postings table of each entity's lowered name's trigrams
-- (pg_trgm's show_trgm) under each name of the entity's scope set, as recall.title_trigrams
-- (migration 00004) is for titles. The fuzzy branch of the entity probe of a caller who sees
-- few entities reads it (sql/lanes/entity_probe.sql): its work follows the caller's entities,
-- where the trigram index's posting lists hold every scope's, so a name common in scopes the
-- caller cannot see still cost it time there (issue 38: +0.9 ms with 3,000 such names). A
-- trigger keeps it (sql/write/entity_trigrams.sql). Only the owner reads it: recall_runtime
-- has no grant, and row security with no policy.

-- Each entity also has one row with the empty trigram, which no name has: counting a caller's
-- rows of it (up to a bound) tells the probe how many entities the caller sees.

-- +goose Up
CREATE TABLE recall.entity_trigrams (
  scope     text NOT NULL,
  trigram   text NOT NULL,
  entity_id bigint NOT NULL REFERENCES recall.entities (id) ON DELETE CASCADE,
  PRIMARY KEY (scope, trigram, entity_id)
);
CREATE INDEX entity_trigrams_entity_idx ON recall.entity_trigrams (entity_id);
ALTER TABLE recall.entity_trigrams ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON recall.entity_trigrams FROM PUBLIC;
COMMENT ON TABLE recall.entity_trigrams IS 'Each entity name''s trigrams under each of its scopes, for the fuzzy entity probe of small callers. Only the owner reads it.';
INSERT INTO recall.entity_trigrams (scope, trigram, entity_id)
SELECT DISTINCT sc, tg, e.id
FROM recall.entities e
CROSS JOIN LATERAL unnest(e.scopes) AS sc
CROSS JOIN LATERAL unnest(array_prepend(''::text, show_trgm(lower(e.name)))) AS tg;

-- +goose Down
-- The trigger and its function come from sql/write/entity_trigrams.sql; forgetting that file
-- makes the next Up apply it again.
DROP TRIGGER IF EXISTS entities_name_trigrams ON recall.entities;
DROP FUNCTION IF EXISTS recall.entities_name_trigrams();
DELETE FROM recall.function_files WHERE file = 'write/entity_trigrams.sql';
DROP TABLE recall.entity_trigrams;
