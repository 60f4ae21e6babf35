-- Keep a memory's embedding, text and lexemes in its row.
--
-- pgvector's types default to external storage: a value is moved out of line, uncompressed,
-- as soon as its row passes Postgres's 2 kB target, which a 384-dimension embedding (1.5 kB)
-- with a short text does and a 1024-dimension one (4 kB) always does. Every read of the
-- embedding then costs a TOAST index probe and the chunks' pages besides the row. The vector
-- lane's exact branch, which ranks all of a small caller's memories, reads each embedding
-- twice (its dimension check and its distance): for a caller who sees 10,000 of 1M memories
-- that was 90,063 buffers and 91 ms under EXPLAIN ANALYZE, 40,000 of them TOAST reads.
--
-- MAIN storage keeps the embedding in the row unless the row could not fit a page. Alone, it
-- moves the text and lexemes out instead (the row still passes 2 kB), which the fusion tail
-- then reads through TOAST; a toast_tuple_target of 8160 bytes (the most Postgres allows)
-- keeps them in too. Only a row of more than about 8 kB (a long text) is still compressed or
-- moved out. Rows are wider: the heap holds fewer memories per page, and the TOAST relation
-- little.
--
-- Both apply to rows written from now on. Rows written before keep their values out of line
-- until the table is rewritten (VACUUM FULL recall.memories, which locks the table; or
-- pg_repack).

-- +goose Up
ALTER TABLE recall.memories ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE recall.memories SET (toast_tuple_target = 8160);

-- +goose Down
ALTER TABLE recall.memories RESET (toast_tuple_target);
ALTER TABLE recall.memories ALTER COLUMN embedding SET STORAGE EXTERNAL;
