-- Every key holds its row's scope set (issue 34). Citus requires a unique key of a table
-- distributed by `scopes` to contain `scopes`, and a co-located foreign key to join on it; so
-- the keys the writers upsert on, and the trigram postings' links to their sources and
-- entities, name the scope set on every server. On one server nothing changes in meaning: a
-- memory's id already fixes its scope set (migration 00006), so (memory_id, entity_id) and
-- (memory_id, entity_id, scopes) are unique together. The primary keys on `id` alone of
-- memories, sources, entities and relations stay here; the Citus distribution step
-- (sql/citus/distribute.sql) drops them there, where (id, scopes) is the key.
--
-- recall.bm25_dirty is empty on one server. On Citus the BM25 upkeep cannot run as the
-- statement-level triggers it is here (a shard has no transition tables), so a row trigger
-- there notes each changed memory in it, co-located with the memory, and the writer calls
-- recall.bm25_flush() before it commits (sql/write/bm25.sql).

-- +goose Up
ALTER TABLE recall.mentions DROP CONSTRAINT mentions_pkey,
  ADD CONSTRAINT mentions_pkey PRIMARY KEY (memory_id, entity_id, scopes) INCLUDE (speaker);
ALTER TABLE recall.memory_access DROP CONSTRAINT memory_access_pkey,
  ADD CONSTRAINT memory_access_pkey PRIMARY KEY (memory_id, scopes);
ALTER TABLE recall.bm25_docs DROP CONSTRAINT bm25_docs_pkey,
  ADD CONSTRAINT bm25_docs_pkey PRIMARY KEY (memory_id, scopes);
ALTER TABLE recall.bm25_postings DROP CONSTRAINT bm25_postings_pkey,
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term, scopes) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned);
ALTER TABLE recall.summary_coverage DROP CONSTRAINT summary_coverage_pkey,
  ADD CONSTRAINT summary_coverage_pkey PRIMARY KEY (summary_id, memory_id, scopes);
DROP INDEX recall.relations_edge_idx;
CREATE UNIQUE INDEX relations_edge_idx ON recall.relations (src_id, dst_id, predicate, coalesce(memory_id, 0), scopes);

ALTER TABLE recall.title_trigrams ADD COLUMN scopes text[];
UPDATE recall.title_trigrams t SET scopes = s.scopes FROM recall.sources s WHERE s.id = t.source_id;
ALTER TABLE recall.title_trigrams ALTER COLUMN scopes SET NOT NULL,
  DROP CONSTRAINT title_trigrams_source_id_fkey,
  ADD CONSTRAINT title_trigrams_source_fkey FOREIGN KEY (source_id, scopes) REFERENCES recall.sources (id, scopes) ON DELETE CASCADE,
  DROP CONSTRAINT title_trigrams_pkey,
  ADD CONSTRAINT title_trigrams_pkey PRIMARY KEY (scope, trigram, source_id, scopes);
ALTER TABLE recall.entity_trigrams ADD COLUMN scopes text[];
UPDATE recall.entity_trigrams t SET scopes = e.scopes FROM recall.entities e WHERE e.id = t.entity_id;
ALTER TABLE recall.entity_trigrams ALTER COLUMN scopes SET NOT NULL,
  DROP CONSTRAINT entity_trigrams_entity_id_fkey,
  ADD CONSTRAINT entity_trigrams_entity_fkey FOREIGN KEY (entity_id, scopes) REFERENCES recall.entities (id, scopes) ON DELETE CASCADE,
  DROP CONSTRAINT entity_trigrams_pkey,
  ADD CONSTRAINT entity_trigrams_pkey PRIMARY KEY (scope, trigram, entity_id, scopes);

CREATE TABLE recall.bm25_dirty (
  scopes    text[] NOT NULL,
  memory_id bigint NOT NULL,
  source_id bigint,
  position  integer
);
ALTER TABLE recall.bm25_dirty ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON recall.bm25_dirty FROM PUBLIC;
COMMENT ON TABLE recall.bm25_dirty IS 'On Citus: memories changed in the open transaction whose lexical data recall.bm25_flush() rebuilds before commit. Empty on one server. Only the owner reads it.';

-- +goose Down
-- The function files written for this schema (the trigram postings' BEFORE triggers, the BM25
-- upkeep by scope set) go with it; the next Up applies the files of its own build.
DROP TRIGGER IF EXISTS entities_name_trigrams_old ON recall.entities;
DROP TRIGGER IF EXISTS sources_title_trigrams_old ON recall.sources;
DELETE FROM recall.function_files WHERE file IN ('write/title_trigrams.sql', 'write/entity_trigrams.sql', 'write/bm25.sql');
DROP TABLE recall.bm25_dirty;
ALTER TABLE recall.entity_trigrams DROP CONSTRAINT entity_trigrams_pkey,
  DROP CONSTRAINT entity_trigrams_entity_fkey,
  ADD CONSTRAINT entity_trigrams_entity_id_fkey FOREIGN KEY (entity_id) REFERENCES recall.entities (id) ON DELETE CASCADE;
ALTER TABLE recall.entity_trigrams DROP COLUMN scopes;
ALTER TABLE recall.entity_trigrams ADD CONSTRAINT entity_trigrams_pkey PRIMARY KEY (scope, trigram, entity_id);
ALTER TABLE recall.title_trigrams DROP CONSTRAINT title_trigrams_pkey,
  DROP CONSTRAINT title_trigrams_source_fkey,
  ADD CONSTRAINT title_trigrams_source_id_fkey FOREIGN KEY (source_id) REFERENCES recall.sources (id) ON DELETE CASCADE;
ALTER TABLE recall.title_trigrams DROP COLUMN scopes;
ALTER TABLE recall.title_trigrams ADD CONSTRAINT title_trigrams_pkey PRIMARY KEY (scope, trigram, source_id);
DROP INDEX recall.relations_edge_idx;
CREATE UNIQUE INDEX relations_edge_idx ON recall.relations (src_id, dst_id, predicate, coalesce(memory_id, 0));
ALTER TABLE recall.summary_coverage DROP CONSTRAINT summary_coverage_pkey,
  ADD CONSTRAINT summary_coverage_pkey PRIMARY KEY (summary_id, memory_id);
ALTER TABLE recall.bm25_postings DROP CONSTRAINT bm25_postings_pkey,
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned, scopes);
ALTER TABLE recall.bm25_docs DROP CONSTRAINT bm25_docs_pkey,
  ADD CONSTRAINT bm25_docs_pkey PRIMARY KEY (memory_id);
ALTER TABLE recall.memory_access DROP CONSTRAINT memory_access_pkey,
  ADD CONSTRAINT memory_access_pkey PRIMARY KEY (memory_id);
ALTER TABLE recall.mentions DROP CONSTRAINT mentions_pkey,
  ADD CONSTRAINT mentions_pkey PRIMARY KEY (memory_id, entity_id) INCLUDE (scopes, speaker);
