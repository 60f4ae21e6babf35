-- The distribution step on a Citus coordinator (migrations.Distribute, `recall migrate
-- distribute`), run as the owner in one transaction after every migration and function file:
-- all of it happens or none. Every table whose rows carry a scope set is distributed by
-- `scopes`, co-located with recall.sources, so a scope set's memories, postings, statistics,
-- entities, relations and the rows linking them are on one shard; the scope names are a
-- reference table (every node reads them); API keys, function files and goose's version
-- table stay on the coordinator. docs/SCALING.md says why each, and what is left.

-- A supersession's key (superseded_by, scopes) releases the old memory when the newer one is
-- deleted by ON DELETE SET NULL (superseded_by), and a duplicate's (duplicate_of, scopes) the
-- duplicate when its original is; Citus refuses SET NULL on a key holding the distribution
-- column, so on Citus this row trigger does both, in the row's own shard. The writer already
-- resolves both memories of each in the batch's scope set (sql/write/supersede.sql,
-- duplicates.sql), which is what the keys guaranteed besides.
CREATE OR REPLACE FUNCTION recall.memories_supersession_released() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
BEGIN
  UPDATE recall.memories SET superseded_by = NULL WHERE scopes = OLD.scopes AND superseded_by = OLD.id;
  UPDATE recall.memories SET duplicate_of = NULL WHERE scopes = OLD.scopes AND duplicate_of = OLD.id;
  RETURN NULL;
END
$f$;

DO $$
DECLARE
  r record;
  t text;
  tables text[] := ARRAY['sources', 'memories', 'entities', 'relations', 'mentions', 'summary_coverage', 'memory_access',
                         'bm25_postings', 'bm25_docs', 'bm25_terms', 'bm25_corpus', 'bm25_dirty',
                         'title_trigrams', 'entity_trigrams'];
  detail text;
  hint text;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
    RAISE EXCEPTION 'recall: this server does not run Citus (no pg_dist_partition)';
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = 'recall.memories'::regclass) THEN
    RETURN; -- distributed already
  END IF;
  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);

  -- A unique key of a distributed table holds its distribution column: the keys on id alone
  -- go; (id, scopes), which every link already references (migration 00006), is the key.
  ALTER TABLE recall.memories DROP CONSTRAINT memories_pkey;
  ALTER TABLE recall.sources DROP CONSTRAINT sources_pkey;
  ALTER TABLE recall.entities DROP CONSTRAINT entities_pkey;
  ALTER TABLE recall.relations DROP CONSTRAINT relations_pkey, ADD CONSTRAINT relations_pkey PRIMARY KEY (id, scopes);

  -- Policies: Citus refuses a subquery in a policy of a distributed table, so the caller's
  -- scopes are read by a plain call (recall.read_scopes() is STABLE: once per statement and
  -- shard) instead of the InitPlan the single server keeps for speed. Each policy is
  -- rewritten from its own definition, so the two forms cannot drift.
  FOR r IN SELECT p.policyname, p.tablename, p.qual, p.with_check FROM pg_catalog.pg_policies p
            WHERE p.schemaname = 'recall' LOOP
    IF r.qual IS NOT NULL THEN
      EXECUTE format('ALTER POLICY %I ON recall.%I USING (%s)', r.policyname, r.tablename, regexp_replace(r.qual, '\(\s*SELECT (recall\.(read|write)_scopes\(\)) AS \w+\)', '\1', 'g'));
    END IF;
    IF r.with_check IS NOT NULL THEN
      EXECUTE format('ALTER POLICY %I ON recall.%I WITH CHECK (%s)', r.policyname, r.tablename, regexp_replace(r.with_check, '\(\s*SELECT (recall\.(read|write)_scopes\(\)) AS \w+\)', '\1', 'g'));
    END IF;
  END LOOP;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_policies p WHERE p.schemaname = 'recall'
              AND (p.qual ~* 'select' OR p.with_check ~* 'select')) THEN
    RAISE EXCEPTION 'recall: a policy still holds a subquery after its rewrite for Citus';
  END IF;

  -- The statement-level BM25 triggers read transition tables, which a shard does not have;
  -- bm25.sql's row trigger takes their place once memories is distributed.
  DROP TRIGGER memories_bm25_insert ON recall.memories;
  DROP TRIGGER memories_bm25_delete ON recall.memories;
  DROP TRIGGER memories_bm25_update ON recall.memories;
  ALTER TABLE recall.memories DROP CONSTRAINT memories_superseded_fkey, DROP CONSTRAINT memories_duplicate_fkey;

  PERFORM create_reference_table('recall.scopes');
  -- Rows already written move into the shards with their derived rows (postings, trigram
  -- postings, statistics), so the write triggers must not fire on that copy: they would
  -- derive the rows again, into tables not yet distributed ("relation ... does not exist" on
  -- a worker). They are off while the tables move, and on again after (Citus carries a
  -- trigger's state to the shards).
  FOREACH t IN ARRAY tables LOOP
    EXECUTE format('ALTER TABLE recall.%I DISABLE TRIGGER USER', t);
  END LOOP;
  FOREACH t IN ARRAY tables LOOP
    BEGIN
      IF t = 'sources' THEN
        PERFORM create_distributed_table('recall.sources', 'scopes');
      ELSE
        PERFORM create_distributed_table('recall.' || t, 'scopes', colocate_with => 'recall.sources');
      END IF;
    EXCEPTION WHEN OTHERS THEN
      GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
      RAISE EXCEPTION 'recall: distributing recall.%: %', t, SQLERRM USING DETAIL = detail, HINT = hint;
    END;
  END LOOP;
  FOREACH t IN ARRAY tables LOOP
    EXECUTE format('ALTER TABLE recall.%I ENABLE TRIGGER USER', t);
  END LOOP;
  CREATE TRIGGER memories_bm25_dirty AFTER INSERT OR DELETE OR UPDATE ON recall.memories
    FOR EACH ROW EXECUTE FUNCTION recall.memories_bm25_dirty();
  CREATE TRIGGER memories_supersession_released AFTER DELETE ON recall.memories
    FOR EACH ROW EXECUTE FUNCTION recall.memories_supersession_released();
END
$$;
