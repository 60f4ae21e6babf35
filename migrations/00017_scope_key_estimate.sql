-- Plan lookups of memories by scope set as small reads.
--
-- The recall statement runs as a generic plan, so the planner prices memories.scope_key =
-- (the caller's scope set's key) at the column's average selectivity, 1 / (distinct scope
-- sets). With few scope sets that is a large share of the table: on the benchmark corpus
-- (two sets) the vector lane's exact branch, which only runs for a caller who sees few
-- memories, was planned as a sequential scan of every memory (at 1M memories: 990,000 rows
-- read and dropped for 10,000 kept, 616 ms under EXPLAIN ANALYZE). Every lookup of memories
-- by scope_key in the statement is meant to be a small one (the exact branch; the temporal
-- walks, one row per step), so the column's statistics say that a scope set holds about 100
-- memories (distinct values: 1% of the rows), whatever ANALYZE counts.

-- +goose Up
ALTER TABLE recall.memories ALTER COLUMN scope_key SET (n_distinct = -0.01);
ANALYZE recall.memories;

-- +goose Down
ALTER TABLE recall.memories ALTER COLUMN scope_key RESET (n_distinct);
ANALYZE recall.memories;
