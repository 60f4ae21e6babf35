-- statement.ShardSQLSets: a distributed table's read in the shard form of several scope sets
-- on one worker, one per shard that holds any of them ({{shard}}), bound to the sets
-- ({{sets}}: their text[] literals); the reads of one table are joined by UNION ALL.
SELECT * FROM {{shard}} WHERE scopes IN ({{sets}})
