-- Indexes for reads under row security.
--
-- BM25 postings are read from their indexes alone. Under row security every row a lane reads is checked against the policy (scopes &&
-- read_scopes()), and scopes was not in the postings' indexes: each candidate posting and each
-- (candidate, term) posting scored cost a heap fetch, in random order over the largest table.
-- With scopes (and what the lane reads) included, both reads are index-only scans once the
-- table's pages are all-visible (after autovacuum). The price is index size: at 100k
-- memories the lookup index grows from 255 to 364 MB and the key from 157 to 363 MB.
-- Upgrading the 1M-memory benchmark corpus (48 million postings) with `recall migrate up`
-- took 2 min 14 s, under an exclusive lock on bm25_postings.
--
-- The temporal lane walks each visible scope set's memories in occurred_start order: with
-- the walk over all memories, a caller who sees 1% of them read about a hundred rows per
-- step (row security discards the others), 13 ms at 100k memories and 396 ms at 1M under
-- EXPLAIN ANALYZE. The (scope_key, occurred_start, id) index replaces the (scope_key) one of
-- 00011, which the vector lane's exact branch reads by its prefix.

-- +goose Up
DROP INDEX recall.bm25_postings_lookup_idx;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id, scopes);
ALTER TABLE recall.bm25_postings
  DROP CONSTRAINT bm25_postings_pkey,
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term) INCLUDE (tf, doc_len, scopes);
DROP INDEX recall.memories_scope_key_idx;
CREATE INDEX memories_scope_time_idx ON recall.memories (scope_key, occurred_start, id);

-- +goose Down
DROP INDEX recall.memories_scope_time_idx;
CREATE INDEX memories_scope_key_idx ON recall.memories (scope_key);
ALTER TABLE recall.bm25_postings
  DROP CONSTRAINT bm25_postings_pkey,
  ADD CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term);
DROP INDEX recall.bm25_postings_lookup_idx;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id);
