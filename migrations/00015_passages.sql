-- Passages for long memories (issue 52, item 2). A memory of more than recall.passage_words()
-- words is also read as passages (sql/write/lexemes.sql: recall.passage_bounds), which the
-- BM25 lane scores as documents of their own under the caller's statistics; the pack may give
-- the passage that matched instead of the whole memory.
--   memories.passages: the passages' character bounds; '{}' for a memory that is its own
--     passage; NULL for a memory written before this migration, which migrations.Up splits
--     once the function files are in place (memories_unsplit_idx finds them, and is empty
--     after).
--   bm25_postings.ptf, pdoc_len: for a memory with passages, the term's frequency in each
--     passage and each passage's length (lexeme occurrences, as tf and doc_len), smallints
--     (a tf is at most 256, tsvector's limit; a length is clamped to 32,767); NULL for the
--     others, and for a term only its neighbours have. Both indexes the lane reads postings
--     by carry them, so scoring the passages reads no more rows than scoring the memories.

-- +goose Up
-- Written to run again on a database that has it (chat_window_test.go's upFrom does).
ALTER TABLE recall.memories ADD COLUMN IF NOT EXISTS passages int4range[];
ALTER TABLE recall.bm25_postings ADD COLUMN IF NOT EXISTS ptf smallint[], ADD COLUMN IF NOT EXISTS pdoc_len smallint[];
-- Two statements: Citus takes no ADD CONSTRAINT beside another subcommand.
ALTER TABLE recall.bm25_postings DROP CONSTRAINT bm25_postings_pkey;
ALTER TABLE recall.bm25_postings
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term, scopes) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned, ptf, pdoc_len);
DROP INDEX IF EXISTS recall.bm25_postings_lookup_idx;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id, scopes, tf, doc_len, ntf, ndoc_len, positioned, ptf, pdoc_len);
CREATE INDEX IF NOT EXISTS memories_unsplit_idx ON recall.memories (id) WHERE passages IS NULL;

-- +goose Down
DROP INDEX recall.memories_unsplit_idx;
DROP INDEX recall.bm25_postings_lookup_idx;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id, scopes, tf, doc_len, ntf, ndoc_len, positioned);
ALTER TABLE recall.bm25_postings DROP CONSTRAINT bm25_postings_pkey;
ALTER TABLE recall.bm25_postings
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term, scopes) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned);
ALTER TABLE recall.bm25_postings DROP COLUMN ptf, DROP COLUMN pdoc_len;
ALTER TABLE recall.memories DROP COLUMN passages;
