-- What is true when (issue 35, validity and supersession). A memory may hold only from
-- valid_from and until valid_until, and may be superseded by a later memory of its own scope
-- set (write.Memory.Supersedes): superseded_by names it and superseded_at is when the old one
-- stopped holding (the new one's valid_from, else its occurred_start, else the write's time).
-- Recall answers what holds at its as_of (Options.AsOf, default its now): the statement leaves
-- the rest out where it reads the kept candidates' rows (sql/lanes/output.sql), as it does
-- expired memories. The key keeps a supersession inside its scope set, so whoever sees one of
-- the two memories sees both; deleting the newer memory makes the older one hold again (the
-- key sets superseded_by to NULL; superseded_at means something only while it is set).

-- +goose Up
ALTER TABLE recall.memories
  ADD COLUMN valid_from    timestamptz,
  ADD COLUMN valid_until   timestamptz,
  ADD COLUMN superseded_by bigint,
  ADD COLUMN superseded_at timestamptz,
  ADD CONSTRAINT memories_valid_check CHECK (valid_until > valid_from),
  ADD CONSTRAINT memories_superseded_check CHECK (superseded_by <> id),
  ADD CONSTRAINT memories_superseded_fkey FOREIGN KEY (superseded_by, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE SET NULL (superseded_by);
CREATE INDEX memories_superseded_idx ON recall.memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- +goose Down
DROP INDEX recall.memories_superseded_idx;
ALTER TABLE recall.memories
  DROP CONSTRAINT memories_superseded_fkey,
  DROP CONSTRAINT memories_superseded_check,
  DROP CONSTRAINT memories_valid_check,
  DROP COLUMN superseded_at, DROP COLUMN superseded_by, DROP COLUMN valid_until, DROP COLUMN valid_from;
