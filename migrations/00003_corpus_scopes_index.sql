-- Every recall reads the caller's scope sets from bm25_corpus (sql/lanes/visible.sql) under
-- row security. With one row per scope set, a server of many tenants made each recall scan
-- every tenant's row to keep the caller's few: measured on 50,000 scope sets, 7-11 ms per
-- recall, growing with scope sets the caller cannot see. An index on the scope set serves
-- the policy's condition (scopes && read_scopes) instead (0.05 ms). bm25_corpus updates
-- leave scopes as they are, so they stay heap-only.

-- +goose Up
CREATE INDEX bm25_corpus_scopes_idx ON recall.bm25_corpus USING gin (scopes);

-- +goose Down
DROP INDEX recall.bm25_corpus_scopes_idx;
