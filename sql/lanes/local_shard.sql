-- recall.local_shard: the name of the shard of rel, a table distributed by scope set, that
-- holds scope set route, when that shard is placed on this node (Citus's metadata, which
-- every node of a cluster keeps); NULL when it is placed elsewhere. The shard probes
-- (recall.probe_titles_shard, probe_entities_shard) read the tables so named. PL/pgSQL, whose
-- names are resolved at the call: on a server without Citus it is created, never called.
CREATE OR REPLACE FUNCTION recall.local_shard(rel regclass, route text[]) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  shard bigint := get_shard_id_for_distribution_column(rel, route);
BEGIN
  IF EXISTS (SELECT 1 FROM pg_dist_placement p
             WHERE p.shardid = shard AND p.groupid = (SELECT g.groupid FROM pg_dist_local_group g)) THEN
    RETURN shard_name(rel, shard);
  END IF;
  RETURN NULL;
END
$$;

-- recall.shard_placement: where scope set route's shards are, read on the coordinator
-- (statement.PlacementOf): for every table of schema recall distributed by scope set, the
-- shard that holds the set and the address of the worker it is placed on. As the owner:
-- Citus's shard lookup checks the caller's privileges on each table, and the runtime role
-- reads several only through functions. It says nothing of the set's rows: the shard is the
-- set's hash's, whether the set has rows or not.
CREATE OR REPLACE FUNCTION recall.shard_placement(route text[])
RETURNS TABLE (tbl text, shard text, nodename text, nodeport int)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RETURN QUERY
  SELECT split_part(t.logicalrelid::regclass::text, '.', 2), shard_name(t.logicalrelid, t.shardid), n.nodename, n.nodeport
  FROM (SELECT p.logicalrelid, get_shard_id_for_distribution_column(p.logicalrelid, route) AS shardid
        FROM pg_dist_partition p
        WHERE p.logicalrelid::regclass::text LIKE 'recall.%' AND p.partmethod = 'h') t
  JOIN pg_dist_placement pl ON pl.shardid = t.shardid
  JOIN pg_dist_node n ON n.groupid = pl.groupid
  ORDER BY 1;
END
$$;
GRANT EXECUTE ON FUNCTION recall.shard_placement(text[]) TO recall_runtime;
