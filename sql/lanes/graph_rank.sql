-- graph (3 of 4): PageRank over the walked entities (graph_walk.sql), personalized to the
-- seeds; graph_top holds the graph_entities entities with the most mass.
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
)
