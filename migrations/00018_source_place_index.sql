-- One index of recall.memories by (source, place) in place of two: memories_source_idx
-- (source_id) and the partial memories_source_position_idx (source_id, position WHERE
-- position IS NOT NULL). With both there, a lookup of a memory's neighbours by source and
-- place (the lexical upkeep's, bm25_touched's, the context lane's) could be planned on the
-- smaller one whenever the statistics made a source look short, and then read every memory
-- of the source for each memory looked up: quadratic in a session's length, and a long chat
-- kept as one source is one long session (seen in bm25_touched on a table never analyzed,
-- and in the context lane's hand-off). The one index answers a lookup by source alone as
-- well (deleting a source, its memories), and a write maintains one index fewer.

-- +goose Up
CREATE INDEX IF NOT EXISTS memories_source_place_idx ON recall.memories (source_id, position);
DROP INDEX IF EXISTS recall.memories_source_idx;
DROP INDEX IF EXISTS recall.memories_source_position_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS memories_source_idx ON recall.memories (source_id);
CREATE INDEX IF NOT EXISTS memories_source_position_idx ON recall.memories (source_id, position) WHERE position IS NOT NULL;
DROP INDEX IF EXISTS recall.memories_source_place_idx;
