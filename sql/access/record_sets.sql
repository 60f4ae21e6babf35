-- The scope sets of the memories a recall packed, for recording their access on a Citus
-- cluster (package access): there the recording statement must name one scope set to be
-- routed to its shard (FOR KEY SHARE is refused on a query across shards).
SELECT DISTINCT m.scopes FROM recall.memories m WHERE m.id = ANY(@ids::bigint[])
