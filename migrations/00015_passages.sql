-- Passages for long memories (issue 52, item 2). A memory of more than recall.passage_words()
-- words is also read as passages (sql/write/lexemes.sql: recall.passage_bounds), which the
-- BM25 lane scores as documents of their own under the caller's statistics; the pack may give
-- the passage that matched instead of the whole memory.
--   memories.passages: the passages' character bounds; '{}' for a memory that is its own
--     passage; NULL for a memory written before this migration, which migrations.Up splits
--     once the function files are in place (memories_unsplit_idx finds them, and is empty
--     after).
--   bm25_postings.ptf, pdoc_len: for a memory with passages, the term's frequency in each
--     passage and each passage's length (lexeme occurrences, as tf and doc_len); NULL for the
--     others, and for a term only its neighbours have. bm25_postings_passages_idx holds them
--     for the lane's probe, for the long memories only.

-- +goose Up
ALTER TABLE recall.memories ADD COLUMN passages int4range[];
ALTER TABLE recall.bm25_postings ADD COLUMN ptf integer[], ADD COLUMN pdoc_len integer[];
CREATE INDEX bm25_postings_passages_idx ON recall.bm25_postings (memory_id, term) INCLUDE (scopes, ptf, pdoc_len)
  WHERE ptf IS NOT NULL;
CREATE INDEX memories_unsplit_idx ON recall.memories (id) WHERE passages IS NULL;

-- +goose Down
DROP INDEX recall.memories_unsplit_idx;
DROP INDEX recall.bm25_postings_passages_idx;
ALTER TABLE recall.bm25_postings DROP COLUMN ptf, DROP COLUMN pdoc_len;
ALTER TABLE recall.memories DROP COLUMN passages;
