-- Whether recall's tables are distributed on this Citus coordinator (migrations.Distribute),
-- asked once per connection by internal/scope.Apply after is_citus.sql said Citus: then the
-- recall statement is routed to one scope set's shard (package statement). pg_dist_partition
-- exists only where Citus is installed, so it is not asked elsewhere.
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = pg_catalog.to_regclass('recall.memories'))
