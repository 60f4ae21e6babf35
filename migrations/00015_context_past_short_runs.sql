-- The context lane reads a memory past a run of short neighbours, up to three places away
-- (sql/write/bm25.sql, short_reach: "Did you fix the crane?", a thumbs-up, "<Media omitted>",
-- "yes, Tomasz replaced the pump" reads the answer with the question), where 00014's rule
-- stopped two places away. The lexical data of memories written before counts at most two
-- places either side; this notes every short memory with a place for a rebuild, and
-- migrations.Up runs recall.bm25_flush() once the function files are in place, which
-- rebuilds the memories up to three places from each (bm25_touched). A database without
-- short memories with a place (documents, notes, long turns) notes nothing.

-- +goose Up
INSERT INTO recall.bm25_dirty (scopes, memory_id, source_id, position)
SELECT m.scopes, m.id, m.source_id, m.position
  FROM recall.memories m
 WHERE m.position IS NOT NULL AND m.doc_len < 7;

-- +goose Down
DELETE FROM recall.bm25_dirty;
