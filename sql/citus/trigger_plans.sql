-- On a distributed schema the write triggers run on the shards, once per row, and their
-- statements read and write distributed tables through Citus on the worker. The plan PL/pgSQL
-- keeps for such a statement grows at every execution and is freed only with the connection:
-- on a worker, memories_lexemes' title lookup held 32 MB in its cached plan after 500 rows,
-- memories_bm25_dirty's insert 16 MB (pg_backend_memory_contexts), and a load of a million
-- memories through the coordinator had one worker backend at 21 GB when the kernel killed
-- it. Planned afresh at each call (plan_cache_mode = force_custom_plan), a statement's plan is
-- freed after it: TestCitusTriggerPlans. Run after the distribution (migrations.Distribute)
-- and after every application of the function files (migrations.ApplyFunctions), since
-- CREATE OR REPLACE FUNCTION drops the setting; a no-op where memories is not distributed.
DO $$
DECLARE
  f regprocedure;
  distributed boolean := false;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1::regclass)'
      INTO distributed USING 'recall.memories';
  END IF;
  IF NOT distributed THEN
    RETURN;
  END IF;
  -- Only the functions without it: a `recall migrate up` that re-created none changes nothing.
  FOR f IN SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
           WHERE p.pronamespace = 'recall'::regnamespace AND p.prorettype = 'pg_catalog.trigger'::regtype
             AND NOT coalesce('plan_cache_mode=force_custom_plan' = ANY (p.proconfig), false)
           ORDER BY p.proname LOOP
    EXECUTE format('ALTER FUNCTION %s SET plan_cache_mode = force_custom_plan', f);
  END LOOP;
END
$$;
