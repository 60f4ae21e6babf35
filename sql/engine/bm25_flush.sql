-- Rebuild the lexical data of the memories the transaction changed, on a Citus coordinator
-- (scope.Flush; sql/write/bm25.sql says why).
SELECT recall.bm25_flush()
