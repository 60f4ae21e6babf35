-- The memory a large index build wants, for the rest of the transaction only (before
-- ensure_vector_index.sql after a bulk load).
SET LOCAL maintenance_work_mem = '1GB'
