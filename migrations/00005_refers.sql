-- The time a memory's text refers to: "I went to a support group yesterday", said on 8 May
-- 2023, refers to 7 May. The writer reads it from the text relative to when the memory was
-- said (mentioned_at, else occurred_start) unless the caller sets it (package write,
-- refers.go); the temporal lane matches a question's window against it as well as against
-- occurred_start/occurred_end (sql/lanes/temporal.sql). Memories written before this
-- migration have none until they are written again: the migration cannot run the Go reader.
-- The partial index serves the lane's read per scope set; most memories refer to no time.

-- +goose Up
ALTER TABLE recall.memories
  ADD COLUMN refers_start timestamptz,
  ADD COLUMN refers_end   timestamptz,
  ADD CONSTRAINT memories_refers_check CHECK ((refers_start IS NULL) = (refers_end IS NULL) AND refers_end > refers_start);
CREATE INDEX memories_scope_refers_idx ON recall.memories (scope_key, refers_start, id) WHERE refers_start IS NOT NULL;

-- +goose Down
DROP INDEX recall.memories_scope_refers_idx;
ALTER TABLE recall.memories DROP CONSTRAINT memories_refers_check, DROP COLUMN refers_start, DROP COLUMN refers_end;
