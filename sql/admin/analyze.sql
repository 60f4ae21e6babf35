-- Fresh planner statistics for the whole database, after a bulk load (aizk-eval).
ANALYZE
