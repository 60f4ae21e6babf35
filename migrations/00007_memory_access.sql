-- Access statistics move out of recall.memories into their own narrow table.
--
-- Recording an access used to UPDATE the memory row. Memory rows are wide (text, lexemes, a
-- TOASTed embedding) and fill their pages, so such an update was rarely HOT: every one wrote
-- a new tuple and an entry in every index, the HNSW index included. Measured at 100k
-- memories (BenchmarkRecall, 1024-d hashing embeddings): the access transaction for a pack
-- of about 40 memories took 41-67 ms p50, a fifth of the whole recall. A row here is 60 bytes
-- with a single primary key index, and fillfactor leaves room for HOT updates.
--
-- A memory without a row here was never recalled. Rows carry the memory's scope set and the
-- same policies as every table: an access is recorded by a writer of the memory's scopes and
-- read by its readers.

-- +goose Up
CREATE TABLE recall.memory_access (
  memory_id     bigint PRIMARY KEY REFERENCES recall.memories (id) ON DELETE CASCADE,
  scopes        text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  last_accessed timestamptz NOT NULL,
  access_count  bigint NOT NULL CHECK (access_count > 0)
) WITH (fillfactor = 70);
COMMENT ON TABLE recall.memory_access IS 'When and how often each memory was packed into a recall.';

ALTER TABLE recall.memory_access ENABLE ROW LEVEL SECURITY;
CREATE POLICY memory_access_read ON recall.memory_access FOR SELECT TO recall_runtime
  USING (scopes && (SELECT recall.read_scopes()));
CREATE POLICY memory_access_insert ON recall.memory_access FOR INSERT TO recall_runtime
  WITH CHECK (scopes <@ (SELECT recall.write_scopes())
              AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id AND m.scopes = memory_access.scopes));
CREATE POLICY memory_access_update ON recall.memory_access FOR UPDATE TO recall_runtime
  USING (scopes <@ (SELECT recall.write_scopes()))
  WITH CHECK (scopes <@ (SELECT recall.write_scopes()));
CREATE POLICY memory_access_delete ON recall.memory_access FOR DELETE TO recall_runtime
  USING (scopes <@ (SELECT recall.write_scopes()));
GRANT SELECT, INSERT, UPDATE, DELETE ON recall.memory_access TO recall_runtime;

-- A memory moved to another scope set takes its access row along.
-- +goose StatementBegin
CREATE FUNCTION recall.memories_scopes_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE recall.memory_access SET scopes = NEW.scopes WHERE memory_id = NEW.id;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER memories_scopes_changed AFTER UPDATE OF scopes ON recall.memories
  FOR EACH ROW WHEN (OLD.scopes IS DISTINCT FROM NEW.scopes)
  EXECUTE FUNCTION recall.memories_scopes_changed();

INSERT INTO recall.memory_access (memory_id, scopes, last_accessed, access_count)
  SELECT id, scopes, coalesce(last_accessed, now()), access_count
  FROM recall.memories WHERE access_count > 0;
ALTER TABLE recall.memories DROP COLUMN last_accessed, DROP COLUMN access_count;

-- +goose Down
ALTER TABLE recall.memories
  ADD COLUMN last_accessed timestamptz,
  ADD COLUMN access_count bigint NOT NULL DEFAULT 0 CHECK (access_count >= 0);
UPDATE recall.memories m SET last_accessed = a.last_accessed, access_count = a.access_count
  FROM recall.memory_access a WHERE a.memory_id = m.id;
DROP TRIGGER memories_scopes_changed ON recall.memories;
DROP FUNCTION recall.memories_scopes_changed();
DROP TABLE recall.memory_access;
