-- The scope sets the caller sees, from their BM25 statistics (one row per set with memories),
-- read under row security. On a Citus cluster the recall statement is routed to the shard of
-- the caller's one set (statement/routed.go); at most two rows tell whether there is one.
SELECT scopes FROM recall.bm25_corpus ORDER BY scopes LIMIT 2
