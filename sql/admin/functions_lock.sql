-- One applier of the function files at a time (migrations.ApplyFunctions), until its
-- transaction ends; the others then find nothing to do. On a Citus cluster the function
-- files' row triggers are created on distributed tables, which Citus allows only with
-- citus.enable_unsafe_triggers (each trigger's statements name the row's scope set, so they
-- run on the row's own shard); elsewhere the setting is an unused placeholder.
SELECT pg_advisory_xact_lock(hashtext('recall.migrations.functions')),
       set_config('citus.enable_unsafe_triggers', 'on', true)
