-- One applier of the function files at a time (migrations.ApplyFunctions), until its
-- transaction ends; the others then find nothing to do.
SELECT pg_advisory_xact_lock(hashtext('recall.migrations.functions'))
