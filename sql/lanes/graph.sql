-- graph: personalized PageRank over the visible entity graph, seeded by the question, scoring
-- the memories that answer it. Seeds are the entities the query names (mention_entities) and
-- those the best graph_seed_hits bm25 and vector hits mention. The walk takes the visible entities within graph_hops of the
-- seeds (at most graph_frontier, nearest first), treats relations as undirected edges
-- weighted by the sum of their weights, keeps each entity's graph_degree heaviest edges, and
-- iterates
--   r' = (1 - d) p + d (W r + dangling(r) p)
-- graph_iterations times from r = p, where p is uniform over the seeds, W spreads each
-- node's mass over its edges in proportion to weight, and dangling(r) is the mass of the
-- nodes without edges, which goes back to the seeds (in the SQL, W's columns of those nodes
-- are p, which is the same). The graph_entities entities with the most mass score the
-- memories of the pool, the best graph_pool bm25 hits and the vector hits: a memory scores
-- the mass of those it mentions. A memory the question's words and meaning do not reach is
-- not scored however central its entities, so co-mentioned chatter does not rank. Only the
-- relations that hold at the recall's as_of are walked (relation_holds, migration 00012):
-- a superseded fact's edge no longer carries mass.
graph_named AS MATERIALIZED (
  SELECT id FROM mention_entities
),
graph_seeds AS MATERIALIZED (
  SELECT id FROM graph_named
  UNION
  SELECT mn.entity_id
  FROM (
    (SELECT id FROM bm25_scored ORDER BY score DESC, id LIMIT @graph_seed_hits::int)
    UNION
    (SELECT id FROM vector_hits ORDER BY distance, id LIMIT @graph_seed_hits::int)
  ) h
  JOIN recall.mentions mn ON mn.memory_id = h.id AND NOT mn.speaker
),
-- The memories the lane may score. Both lists are already filtered by the lanes that made them.
graph_pool AS MATERIALIZED (
  (SELECT id FROM bm25_scored ORDER BY score DESC, id LIMIT @graph_pool::int)
  UNION
  SELECT id FROM vector_hits WHERE distance <= @vector_max_distance::float8
),
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
      SELECT r.dst_id AS id FROM recall.relations r WHERE r.src_id = ANY (w.ids) AND {{relation_holds}}
      UNION
      SELECT r.src_id FROM recall.relations r WHERE r.dst_id = ANY (w.ids) AND {{relation_holds}}
      EXCEPT
      SELECT unnest(w.seen)
    ) n
  ) nx
  WHERE w.depth < @graph_hops::int AND cardinality(w.ids) > 0
    AND (SELECT count(*) FROM (
          SELECT 1 FROM unnest(w.seen) AS s(id)
          WHERE (SELECT true FROM recall.entities e WHERE e.id = s.id)
          LIMIT @graph_frontier::int) v) < @graph_frontier::int
),
-- The walk keeps the graph_frontier nearest visible entities. Each walked entity, in (depth,
-- id) order, is checked by one key probe (a scalar subquery, so a per-row subplan) as the
-- LIMIT pulls it; OFFSET 0 keeps the check above the sort. A join to entities read the whole
-- table (20,000 entities at 1M memories) for a walk of about 2,000 rows, most of them cut.
graph_nodes AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY x.id)::int AS ord, x.id, x.depth = 0 AS seed
  FROM (
    SELECT w.id, w.depth
    FROM (SELECT u.id, g.depth FROM graph_walk g CROSS JOIN LATERAL unnest(g.ids) AS u(id) ORDER BY 2, 1 OFFSET 0) w
    WHERE (SELECT true FROM recall.entities e WHERE e.id = w.id)
    ORDER BY w.depth, w.id
    LIMIT @graph_frontier::int
  ) x
),
-- graph_index holds the walk's entity ids in ascending order, which is walk order (ord): an
-- id's place is width_bucket(id, ids), a binary search in C. A join of two CTEs would be
-- planned as nested loops on their low estimates, array_position is a linear scan, and a
-- jsonb map, compressed past 2 kB, is decompressed on every lookup.
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
    FROM recall.relations r
    WHERE r.dst_id = ANY (gi.ids) AND {{relation_holds}}
  ) x
  WHERE gi.ids[x.s] = x.src_id
),
-- Undirected: each relation is an edge both ways (a UNION ALL of the two readings; a LATERAL
-- VALUES pair is a rescan per relation, which cost more than the index scan).
graph_edges AS MATERIALIZED (
  SELECT x.src, x.dst, x.w / sum(x.w) OVER (PARTITION BY x.src) AS wn
  FROM (
    SELECT y.src, y.dst, y.w, row_number() OVER (PARTITION BY y.src ORDER BY y.w DESC, y.dst) AS nth
    FROM (
      SELECT u.src, u.dst, sum(u.w) AS w
      FROM (SELECT s, d, w FROM graph_pairs UNION ALL SELECT d, s, w FROM graph_pairs) u (src, dst, w)
      GROUP BY u.src, u.dst
    ) y
  ) x
  WHERE x.nth <= @graph_degree::int
),
graph_p AS MATERIALIZED (
  SELECT n.ord, n.id,
         CASE WHEN n.seed THEN 1.0::float8 / (SELECT count(*) FROM graph_nodes WHERE seed) ELSE 0::float8 END AS p,
         n.ord <> ALL (ARRAY(SELECT DISTINCT e.src FROM graph_edges e)) AS dangling
  FROM graph_nodes n
),
-- The iteration is a matrix-vector product. Row ord of W (the weights of the edges into
-- node ord, by source) is a pgvector vector, so each step costs one inner product per node,
-- computed by pgvector in C, instead of a join and an aggregate over every edge (an order of
-- magnitude faster: BENCHMARKS.md). The price is float4 precision (about 1e-7 relative), far
-- below what separates two ranks that matter.
graph_w AS MATERIALIZED (
  SELECT u.ord, max(u.p) AS p,
         (coalesce('{' || string_agg(u.src || ':' || u.wn, ',' ORDER BY u.src) FILTER (WHERE u.src IS NOT NULL) || '}', '{}')
           || '/' || (SELECT cardinality(ids) FROM graph_index))::sparsevec::vector AS w_in
  FROM (
    -- One aggregate over the nodes and the edges into them: a join of the two CTEs would be
    -- planned as a nested loop on their one-row estimates.
    SELECT n.ord, n.p, NULL::int AS src, NULL::float8 AS wn FROM graph_p n
    UNION ALL
    SELECT e.dst, NULL, e.src, e.wn FROM graph_edges e
    UNION ALL
    -- A dangling node (no edges) gives its mass back to the seeds: its column of W is p.
    -- It has no other entries, as it has no edges.
    SELECT s.ord, NULL, d.ord, s.p FROM graph_p s CROSS JOIN graph_p d WHERE s.p > 0 AND d.dangling
  ) u
  GROUP BY u.ord
),
graph_ppr (i, r) AS (
  SELECT 0, (SELECT array_agg(p ORDER BY ord) FROM graph_p)::vector
  UNION ALL
  SELECT g.i + 1, (
    SELECT array_agg((1 - @graph_damping::float8) * n.p - @graph_damping::float8 * (n.w_in <#> g.r)
                     ORDER BY n.ord)::vector
    FROM graph_w n
  )
  FROM graph_ppr g
  WHERE g.i < @graph_iterations::int AND g.r IS NOT NULL
),
graph_mass AS MATERIALIZED (
  SELECT f.r::real[]::float8[] AS mass FROM graph_ppr f ORDER BY f.i DESC LIMIT 1
),
graph_top AS MATERIALIZED (
  SELECT n.id, g.mass[n.ord] AS mass
  FROM graph_nodes n CROSS JOIN graph_mass g
  WHERE g.mass[n.ord] > 0
  ORDER BY 2 DESC, n.id
  LIMIT @graph_entities::int
),
-- Each memory of the pool scores the mass of the graph_entities entities it mentions, found
-- by binary search in their ids (width_bucket): a join of the CTEs was planned as nested
-- loops on their one-row estimates. A mention carries its memory's scopes (a foreign key on
-- both), so a visible mention names a visible memory.
graph_top_index AS MATERIALIZED (
  SELECT array_agg(id ORDER BY id) AS ids, array_agg(mass ORDER BY id) AS masses FROM graph_top
),
graph_scored AS MATERIALIZED (
  SELECT x.id, x.entity_id, x.masses[x.b] AS mass
  FROM (
    SELECT p.id, mn.entity_id, t.ids, t.masses, width_bucket(mn.entity_id, t.ids) AS b
    FROM (SELECT (SELECT ids FROM graph_top_index) AS ids, (SELECT masses FROM graph_top_index) AS masses) t
    CROSS JOIN graph_pool p
    JOIN recall.mentions mn ON mn.memory_id = p.id AND NOT mn.speaker
  ) x
  WHERE x.ids[x.b] = x.entity_id
),
-- Memories that mention the same top entities tie, and share their mid rank (as mention's).
graph_lane AS (
  SELECT x.id, rank() OVER (ORDER BY x.score DESC) + (count(*) OVER (PARTITION BY x.score) - 1) / 2 AS rank, x.score
  FROM (
    -- The masses are float4 values (graph_mass), so a memory's sum of at most graph_entities
    -- of them is exact in float8 unless they span a factor of more than 2^24: the order of
    -- the additions, which the plan decides, does not change the score.
    SELECT id, sum(mass) AS score
    FROM graph_scored
    GROUP BY id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @graph_k::int
)
