-- Title trigrams by scope: a postings table of each source title's trigrams (pg_trgm's
-- show_trgm of the lowered title) under each name of the source's scope set. The fuzzy title
-- probe of a caller who sees few titles reads it (sql/lanes/title_probe.sql): its work
-- follows the caller's titles, where the trigram index's posting lists hold every scope's.
-- A trigger keeps it (sql/write/title_trigrams.sql). Only the owner reads it: recall_runtime
-- has no grant, and row security with no policy.

-- Each source also has one row with the empty trigram, which no title has: counting a
-- caller's rows of it (up to a bound) tells the probe how many titles the caller sees.

-- +goose Up
CREATE TABLE recall.title_trigrams (
  scope     text NOT NULL,
  trigram   text NOT NULL,
  source_id bigint NOT NULL REFERENCES recall.sources (id) ON DELETE CASCADE,
  PRIMARY KEY (scope, trigram, source_id)
);
CREATE INDEX title_trigrams_source_idx ON recall.title_trigrams (source_id);
ALTER TABLE recall.title_trigrams ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON recall.title_trigrams FROM PUBLIC;
COMMENT ON TABLE recall.title_trigrams IS 'Each source title''s trigrams under each of its scopes, for the fuzzy title probe of small callers. Only the owner reads it.';
INSERT INTO recall.title_trigrams (scope, trigram, source_id)
SELECT DISTINCT sc, tg, s.id
FROM recall.sources s
CROSS JOIN LATERAL unnest(s.scopes) AS sc
CROSS JOIN LATERAL unnest(array_prepend(''::text, show_trgm(lower(s.title)))) AS tg;

-- +goose Down
-- The trigger and its function come from sql/write/title_trigrams.sql; forgetting that file
-- makes the next Up apply it again.
DROP TRIGGER IF EXISTS sources_title_trigrams ON recall.sources;
DROP FUNCTION IF EXISTS recall.sources_title_trigrams();
DELETE FROM recall.function_files WHERE file = 'write/title_trigrams.sql';
DROP TABLE recall.title_trigrams;
