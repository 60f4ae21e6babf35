-- graph (2 of 4): the walk from the seeds (graph_seed.sql) and the relations between the
-- entities it keeps.
-- The walk goes level by level: each level is the entities one visible relation away from
-- the previous level that no earlier level holds (so each entity has its least depth), read
-- for the whole level at once. It stops after graph_hops levels, or as soon as the levels so
-- far hold graph_frontier visible entities: the frontier below keeps the nearest ones, so a
-- deeper level could not enter it. A seed that is a hub (thousands of neighbours) thus costs
-- one level, not the relations of every neighbour.
graph_walk (depth, ids, seen) AS (
  SELECT 0, a.ids, a.ids
  FROM (SELECT coalesce(array_agg(id ORDER BY id), '{}') AS ids FROM graph_seeds) a
  UNION ALL
  SELECT w.depth + 1, nx.ids, w.seen || nx.ids
  FROM graph_walk w
  CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(n.id ORDER BY n.id), '{}') AS ids
    FROM (
      SELECT r.dst_id AS id FROM {{recall.relations}} r WHERE r.src_id = ANY (w.ids) AND {{relation_holds}}
      UNION
      SELECT r.src_id FROM {{recall.relations}} r WHERE r.dst_id = ANY (w.ids) AND {{relation_holds}}
      EXCEPT
      SELECT unnest(w.seen)
    ) n
  ) nx
  WHERE w.depth < @graph_hops::int AND cardinality(w.ids) > 0
    AND (SELECT count(*) FROM (
          SELECT 1 FROM unnest(w.seen) AS s(id)
          WHERE (SELECT true FROM {{recall.entities}} e WHERE e.id = s.id)
          LIMIT @graph_frontier::int) v) < @graph_frontier::int
),
-- The walk keeps the graph_frontier nearest visible entities. Each walked entity, in (depth,
-- id) order, is checked by one key probe (a scalar subquery, so a per-row subplan) as the
-- LIMIT pulls it; OFFSET 0 keeps the check above the sort. A join to entities read the whole
-- table (20,000 entities at 1M memories) for a walk of about 2,000 rows, most of them cut.
graph_nodes AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY x.id)::int AS ord, x.id, x.depth = 0 AS seed, x.depth
  FROM (
    SELECT w.id, w.depth
    FROM (SELECT u.id, g.depth FROM graph_walk g CROSS JOIN LATERAL unnest(g.ids) AS u(id) ORDER BY 2, 1 OFFSET 0) w
    WHERE (SELECT true FROM {{recall.entities}} e WHERE e.id = w.id)
    ORDER BY w.depth, w.id
    LIMIT @graph_frontier::int
  ) x
),
-- graph_index holds the walk's entity ids in ascending order, which is walk order (ord): an
-- id's place is width_bucket(id, ids), a binary search in C. A join of two CTEs would be
-- planned as nested loops on their low estimates, array_position is a linear scan, and a
-- jsonb map, compressed past 2 kB, is decompressed on every lookup.
-- Contract with a recall across workers (statement/spread.go; TestEveryFormRunsEveryLane builds
-- its rounds for every plan and fails when this no longer holds): the rank round takes graph_index
-- whole, by its name at the start of its line.
graph_index AS MATERIALIZED (
  SELECT array_agg(id ORDER BY ord) AS ids
  FROM graph_nodes
),
-- The visible relations between walked entities, as (source place, target place, weight).
-- The relations into walked entities are read by index; whether the source was walked is a
-- binary search too (src_id = ANY (ids) compares with every id).
graph_pairs AS MATERIALIZED (
  SELECT x.s, x.d, x.w
  FROM graph_index gi
  CROSS JOIN LATERAL (
    SELECT width_bucket(r.src_id, gi.ids) AS s, width_bucket(r.dst_id, gi.ids) AS d, r.weight AS w, r.src_id
    FROM {{recall.relations}} r
    WHERE r.dst_id = ANY (gi.ids) AND {{relation_holds}}
  ) x
  WHERE gi.ids[x.s] = x.src_id
)
