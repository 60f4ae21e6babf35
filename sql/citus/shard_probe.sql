-- statement.ShardSQLSets: a probe's shard form for one of several scope sets ({{set}}, its
-- text[] literal) with the routed call's other arguments ({{args}}); the sets' calls are joined
-- by UNION ALL. {{probe}} is entities or titles.
SELECT * FROM recall.probe_{{probe}}_shard({{set}}, {{args}})
