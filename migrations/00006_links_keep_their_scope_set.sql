-- Every link names its target together with its own scope set: a memory's source, a mention's
-- entity, a relation's ends and evidence, a summary's coverage, an access row's memory are
-- foreign keys on (id, scopes). The engine links only within a batch's scope set (it looks
-- ids up by scope set), so a link can only ever point at a row of the same set, and the
-- database now says so.
--
-- This replaces the restrictive policies that checked, by a subquery under the writer's row
-- security, that a link's target is visible: a row of the writer's own scope set is visible
-- to it, and a target outside that set is refused by the key whether it is invisible or
-- missing (SQLSTATE 23503 either way, the same message and the same index probe, so ids of
-- other scopes cannot be probed). Citus refuses policies with subqueries on distributed
-- tables and wants keys that carry the distribution column: these keys are the ones a table
-- distributed by its scope set keeps (docs/SCALING.md).
--
-- What changes for a caller: a memory's scope set is fixed once something links to it (an
-- owner moving a memory with mentions or an access row to another set is refused; write it
-- anew in the other set). No key cascades a change of scopes any more, and the trigger that
-- carried an access row along (sql/access/scopes.sql) is gone: Citus can change neither a
-- row's distribution column nor a key that cascades it. That a summary's coverage starts at a summary is the writer's check (write.Memory's
-- Covers, and sql/write/coverage.sql reads only summaries), no longer a policy: it is a rule
-- of one scope set's own data, not of who sees what.
--
-- The keys are validated as they are added: on a large database that reads each linking
-- table once, inside the migration's transaction.

-- +goose Up
-- (A database migrated by an older version has the trigger; a new one never made it: the
-- function files are applied after the migrations.)
DROP TRIGGER IF EXISTS memories_scopes_changed ON recall.memories;
DROP FUNCTION IF EXISTS recall.memories_scopes_changed();
DELETE FROM recall.function_files WHERE file = 'access/scopes.sql';
ALTER TABLE recall.sources ADD CONSTRAINT sources_id_scopes_key UNIQUE (id, scopes);
ALTER TABLE recall.entities ADD CONSTRAINT entities_id_scopes_key UNIQUE (id, scopes);

DROP POLICY memories_source_visible ON recall.memories;
DROP POLICY memories_source_visible_upd ON recall.memories;
DROP POLICY mentions_links_visible ON recall.mentions;
DROP POLICY mentions_links_visible_upd ON recall.mentions;
DROP POLICY relations_links_visible ON recall.relations;
DROP POLICY relations_links_visible_upd ON recall.relations;
DROP POLICY summary_coverage_links_visible ON recall.summary_coverage;
DROP POLICY summary_coverage_links_visible_upd ON recall.summary_coverage;
DROP POLICY memory_access_insert ON recall.memory_access;
CREATE POLICY memory_access_insert ON recall.memory_access FOR INSERT TO recall_runtime
  WITH CHECK (scopes <@ (SELECT recall.write_scopes()));

ALTER TABLE recall.memories
  DROP CONSTRAINT memories_source_id_fkey,
  ADD CONSTRAINT memories_source_fkey FOREIGN KEY (source_id, scopes)
    REFERENCES recall.sources (id, scopes) ON DELETE CASCADE;
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_entity_id_fkey,
  DROP CONSTRAINT mentions_memory_scopes_fkey,
  ADD CONSTRAINT mentions_entity_fkey FOREIGN KEY (entity_id, scopes)
    REFERENCES recall.entities (id, scopes) ON DELETE CASCADE,
  ADD CONSTRAINT mentions_memory_scopes_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE;
ALTER TABLE recall.relations
  DROP CONSTRAINT relations_src_id_fkey,
  DROP CONSTRAINT relations_dst_id_fkey,
  DROP CONSTRAINT relations_memory_id_fkey,
  ADD CONSTRAINT relations_src_fkey FOREIGN KEY (src_id, scopes)
    REFERENCES recall.entities (id, scopes) ON DELETE CASCADE,
  ADD CONSTRAINT relations_dst_fkey FOREIGN KEY (dst_id, scopes)
    REFERENCES recall.entities (id, scopes) ON DELETE CASCADE,
  ADD CONSTRAINT relations_memory_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE;
ALTER TABLE recall.summary_coverage
  DROP CONSTRAINT summary_coverage_summary_id_fkey,
  DROP CONSTRAINT summary_coverage_memory_id_fkey,
  ADD CONSTRAINT summary_coverage_summary_fkey FOREIGN KEY (summary_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE,
  ADD CONSTRAINT summary_coverage_memory_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE;
ALTER TABLE recall.memory_access
  DROP CONSTRAINT memory_access_memory_id_fkey,
  ADD CONSTRAINT memory_access_memory_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE recall.memory_access
  DROP CONSTRAINT memory_access_memory_fkey,
  ADD CONSTRAINT memory_access_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES recall.memories (id) ON DELETE CASCADE;
ALTER TABLE recall.summary_coverage
  DROP CONSTRAINT summary_coverage_summary_fkey,
  DROP CONSTRAINT summary_coverage_memory_fkey,
  ADD CONSTRAINT summary_coverage_summary_id_fkey FOREIGN KEY (summary_id) REFERENCES recall.memories (id) ON DELETE CASCADE,
  ADD CONSTRAINT summary_coverage_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES recall.memories (id) ON DELETE CASCADE;
ALTER TABLE recall.relations
  DROP CONSTRAINT relations_src_fkey,
  DROP CONSTRAINT relations_dst_fkey,
  DROP CONSTRAINT relations_memory_fkey,
  ADD CONSTRAINT relations_src_id_fkey FOREIGN KEY (src_id) REFERENCES recall.entities (id) ON DELETE CASCADE,
  ADD CONSTRAINT relations_dst_id_fkey FOREIGN KEY (dst_id) REFERENCES recall.entities (id) ON DELETE CASCADE,
  ADD CONSTRAINT relations_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES recall.memories (id) ON DELETE CASCADE;
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_entity_fkey,
  DROP CONSTRAINT mentions_memory_scopes_fkey,
  ADD CONSTRAINT mentions_entity_id_fkey FOREIGN KEY (entity_id) REFERENCES recall.entities (id) ON DELETE CASCADE,
  ADD CONSTRAINT mentions_memory_scopes_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE recall.memories
  DROP CONSTRAINT memories_source_fkey,
  ADD CONSTRAINT memories_source_id_fkey FOREIGN KEY (source_id) REFERENCES recall.sources (id) ON DELETE CASCADE;

DROP POLICY memory_access_insert ON recall.memory_access;
CREATE POLICY memory_access_insert ON recall.memory_access FOR INSERT TO recall_runtime
  WITH CHECK (scopes <@ (SELECT recall.write_scopes())
              AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id AND m.scopes = memory_access.scopes));
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

ALTER TABLE recall.entities DROP CONSTRAINT entities_id_scopes_key;
ALTER TABLE recall.sources DROP CONSTRAINT sources_id_scopes_key;
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
