-- The context lane reads a memory with its neighbours two places away past a short one
-- (sql/write/bm25.sql: a neighbour of fewer than 7 lexemes, a message of a turn sent in
-- pieces, does not make a turn's words around it). The lexical data of memories written
-- before that rule counts one place either side; this notes every short memory with a place
-- for a rebuild, and migrations.Up runs recall.bm25_flush() once the function files are in
-- place, which rebuilds the memories up to two places from each (bm25_touched). A database
-- without short memories with a place (documents, notes, long turns) notes nothing.

-- +goose Up
INSERT INTO recall.bm25_dirty (scopes, memory_id, source_id, position)
SELECT m.scopes, m.id, m.source_id, m.position
  FROM recall.memories m
 WHERE m.position IS NOT NULL AND m.doc_len < 7;

-- +goose Down
DELETE FROM recall.bm25_dirty;
