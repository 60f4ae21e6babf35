-- Every scope set the caller sees, from their BM25 statistics (one row per set with memories),
-- read under row security, in the order of their scopes. On a Citus cluster a read of
-- several sets runs once per set, on its shard (statement.RouteReadSets). The limit is a
-- literal in visible_sets.sql, not a parameter: Citus cannot plan a read across shards whose
-- LIMIT is one ("could not create distributed plan").
SELECT scopes FROM recall.bm25_corpus ORDER BY scopes
