-- Whether the database has pgvector's type, asked when registering it failed: a database
-- without the extension gets an error that says what to run (recall.ErrNoVector).
SELECT to_regtype('vector') IS NOT NULL
