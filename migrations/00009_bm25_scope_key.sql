-- BM25 candidate postings are read by index again.
--
-- The bm25 lane reads the best postings of each query term per visible scope set: the
-- lookup index is (scope set, term, impact DESC). But under row security only leakproof
-- conditions can be index conditions, and = on text[] (array_eq) is not leakproof: the
-- scope-set condition became a filter, so the lane read every posting of the term and sorted
-- them by impact (EXPLAIN ANALYZE at 100k memories: 1,417 postings per term for a query whose
-- terms are not even common). A scope set's key, its scopes joined by one space (a scope name
-- has no space, and scope sets are sorted and distinct, so the key is unique), compares with
-- = on text, which is leakproof.
--
-- Adding the stored column rewrites recall.bm25_postings under an exclusive lock: on the
-- 100,000-memory benchmark corpus (4,754,103 postings) the rewrite took 25 s and the new index
-- 8 s. Plan the upgrade of a large database for it.

-- +goose Up
CREATE FUNCTION recall.scope_key(scopes text[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN array_to_string(scopes, ' ');

ALTER TABLE recall.bm25_postings
  ADD COLUMN scope_key text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED;
DROP INDEX recall.bm25_postings_lookup_idx;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id);

-- +goose Down
DROP INDEX recall.bm25_postings_lookup_idx;
ALTER TABLE recall.bm25_postings DROP COLUMN scope_key;
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scopes, term, impact DESC)
  INCLUDE (memory_id, tf, doc_len);
DROP FUNCTION recall.scope_key(text[]);
