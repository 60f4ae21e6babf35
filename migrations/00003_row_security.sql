-- Row-level security: the product's core guarantee.
--
-- The rule (the same on every table):
--   read:  a row is visible when its scope set shares at least one scope with the caller's
--          read scopes (scopes && read_scopes). A row in several scopes is shared with each.
--   write: a row may be inserted, updated (before and after) or deleted when every one of its
--          scopes is among the caller's write scopes (scopes <@ write_scopes): nobody can put a
--          row into, or change a row shared with, a scope they cannot write.
--   links: a row that points at other rows (a memory's source, a mention's memory and entity,
--          a relation's entities and evidence, a summary's covered memories) may only be
--          written when the caller can see what it points at. Foreign-key checks bypass row
--          security; without this, a writer could probe other scopes' ids.
-- With no scopes set (outside the engine's transactions) nothing is visible or writable.
-- recall_runtime is NOBYPASSRLS and owns nothing, so the policies always apply to it.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['scopes', 'sources', 'memories', 'entities', 'mentions', 'relations', 'summary_coverage'] LOOP
    EXECUTE format('ALTER TABLE recall.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR SELECT TO recall_runtime
                      USING (scopes && (SELECT recall.read_scopes()))', t || '_read', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR INSERT TO recall_runtime
                      WITH CHECK (scopes <@ (SELECT recall.write_scopes()))', t || '_insert', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR UPDATE TO recall_runtime
                      USING (scopes <@ (SELECT recall.write_scopes()))
                      WITH CHECK (scopes <@ (SELECT recall.write_scopes()))', t || '_update', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR DELETE TO recall_runtime
                      USING (scopes <@ (SELECT recall.write_scopes()))', t || '_delete', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON recall.%I TO recall_runtime', t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- Links must point at rows the writer can see. The subqueries run under the caller's own
-- policies, so an invisible row and a missing row look the same: the write is refused.
CREATE POLICY memories_source_visible ON recall.memories AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (source_id IS NULL OR EXISTS (SELECT 1 FROM recall.sources s WHERE s.id = source_id));
CREATE POLICY memories_source_visible_upd ON recall.memories AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (source_id IS NULL OR EXISTS (SELECT 1 FROM recall.sources s WHERE s.id = source_id));

CREATE POLICY mentions_links_visible ON recall.mentions AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = entity_id));
CREATE POLICY mentions_links_visible_upd ON recall.mentions AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = entity_id));

CREATE POLICY relations_links_visible ON recall.relations AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = src_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = dst_id)
          AND (memory_id IS NULL OR EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)));
CREATE POLICY relations_links_visible_upd ON recall.relations AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = src_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = dst_id)
          AND (memory_id IS NULL OR EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)));

CREATE POLICY summary_coverage_links_visible ON recall.summary_coverage AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = summary_id AND m.kind = 'summary')
          AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id));
CREATE POLICY summary_coverage_links_visible_upd ON recall.summary_coverage AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = summary_id AND m.kind = 'summary')
          AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id));

GRANT EXECUTE ON FUNCTION recall.read_scopes(), recall.write_scopes(), recall.is_scope_set(text[]) TO recall_runtime;

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT policyname, tablename FROM pg_policies WHERE schemaname = 'recall' LOOP
    EXECUTE format('DROP POLICY %I ON recall.%I', p.policyname, p.tablename);
  END LOOP;
  FOR p IN SELECT c.relname AS tablename FROM pg_class c
           WHERE c.relnamespace = 'recall'::regnamespace AND c.relkind = 'r' LOOP
    EXECUTE format('ALTER TABLE recall.%I DISABLE ROW LEVEL SECURITY', p.tablename);
    EXECUTE format('REVOKE ALL ON recall.%I FROM recall_runtime', p.tablename);
  END LOOP;
END
$$;
-- +goose StatementEnd
