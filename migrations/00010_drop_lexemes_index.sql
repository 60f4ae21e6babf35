-- The GIN index on memories.lexemes is read by nothing: the bm25 lane reads its own postings
-- (recall.bm25_postings), and no statement matches lexemes with @@. Every memory written paid
-- for about forty GIN entries. Dropped: incremental ingest of 20,000 memories (BenchmarkIngest,
-- one run each) measured 136.1 memories/s with it and 148.8 without.

-- +goose Up
DROP INDEX recall.memories_lexemes_idx;

-- +goose Down
CREATE INDEX memories_lexemes_idx ON recall.memories USING gin (lexemes);
