-- recall.visible_corpus: the bm25_corpus rows of the scope sets the caller sees, read under
-- row security (the function runs as its caller). It is a function for its one setting: with
-- one row per scope set, the planner prices a scan of all of them below the index on the
-- policy's condition until there are tens of thousands (measured: a sequential scan of
-- 20,000 rows to keep the caller's 2), and that is work growing with tenants the caller
-- cannot see. With sequential scans off, the policy's scopes && read_scopes is answered by
-- bm25_corpus_scopes_idx (migration 00003). A function with a SET clause is not inlined, so
-- the setting holds for this query alone.
CREATE OR REPLACE FUNCTION recall.visible_corpus() RETURNS SETOF recall.bm25_corpus
LANGUAGE sql STABLE SET enable_seqscan = off ROWS 10
AS $$ SELECT * FROM recall.bm25_corpus $$;
GRANT EXECUTE ON FUNCTION recall.visible_corpus() TO recall_runtime;
