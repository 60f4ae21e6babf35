-- Where a scope set's shards are on a Citus cluster, read on the coordinator
-- (statement.PlacementOf; sql/lanes/local_shard.sql says how).
SELECT tbl, shard, nodename, nodeport FROM recall.shard_placement($1::text[])
