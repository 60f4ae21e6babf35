-- graph: personalized PageRank over the visible entity graph. Seeds are the entities the query
-- names (mention_entities); when it names none, the entities mentioned by the best
-- graph_seed_hits vector hits. The walk takes the visible entities within graph_hops of the
-- seeds (at most graph_frontier, nearest first), treats relations as undirected edges
-- weighted by the sum of their weights, and iterates
--   r' = (1 - d) p + d (W r + dangling(r) p)
-- graph_iterations times from r = p, where p is uniform over the seeds and W spreads each
-- node's mass over its edges in proportion to weight. A memory scores the summed mass of the
-- entities it mentions.
graph_named AS MATERIALIZED (
  SELECT id FROM mention_entities
),
graph_seeds AS MATERIALIZED (
  SELECT id FROM graph_named
  UNION
  SELECT mn.entity_id
  FROM (SELECT id FROM vector_hits ORDER BY distance, id LIMIT @graph_seed_hits::int) v
  JOIN recall.mentions mn ON mn.memory_id = v.id
  WHERE NOT EXISTS (SELECT 1 FROM graph_named)
),
graph_walk (id, depth) AS (
  SELECT id, 0 FROM graph_seeds
  UNION
  SELECT nb.id, w.depth + 1
  FROM graph_walk w
  CROSS JOIN LATERAL (
    SELECT r.dst_id AS id FROM recall.relations r WHERE r.src_id = w.id
    UNION ALL
    SELECT r.src_id FROM recall.relations r WHERE r.dst_id = w.id
  ) nb
  WHERE w.depth < @graph_hops::int
),
graph_nodes AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY x.depth, x.id)::int AS ord, x.id, x.depth = 0 AS seed
  FROM (
    SELECT w.id, min(w.depth) AS depth
    FROM graph_walk w
    JOIN recall.entities e ON e.id = w.id
    GROUP BY w.id
    ORDER BY min(w.depth), w.id
    LIMIT @graph_frontier::int
  ) x
),
graph_edges AS MATERIALIZED (
  SELECT src, dst, w / sum(w) OVER (PARTITION BY src) AS wn
  FROM (
    SELECT src, dst, sum(w) AS w FROM (
      SELECT a.ord AS src, b.ord AS dst, r.weight AS w
      FROM recall.relations r
      JOIN graph_nodes a ON a.id = r.src_id
      JOIN graph_nodes b ON b.id = r.dst_id
      UNION ALL
      SELECT b.ord, a.ord, r.weight
      FROM recall.relations r
      JOIN graph_nodes a ON a.id = r.src_id
      JOIN graph_nodes b ON b.id = r.dst_id
    ) u
    GROUP BY src, dst
  ) g
),
graph_p AS MATERIALIZED (
  SELECT n.ord, n.id,
         CASE WHEN n.seed THEN 1.0::float8 / (SELECT count(*) FROM graph_nodes WHERE seed) ELSE 0::float8 END AS p,
         NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.src = n.ord) AS dangling
  FROM graph_nodes n
),
graph_ppr (i, r) AS (
  SELECT 0, (SELECT array_agg(p ORDER BY ord) FROM graph_p)
  UNION ALL
  SELECT g.i + 1, (
    SELECT array_agg((1 - @graph_damping::float8) * n.p
                     + @graph_damping::float8 * (coalesce(x.mass, 0) + d.mass * n.p) ORDER BY n.ord)
    FROM graph_p n
    LEFT JOIN (SELECT e.dst, sum(g.r[e.src] * e.wn) AS mass FROM graph_edges e GROUP BY e.dst) x
      ON x.dst = n.ord
    CROSS JOIN (SELECT coalesce(sum(g.r[q.ord]), 0) AS mass FROM graph_p q WHERE q.dangling) d
  )
  FROM graph_ppr g
  WHERE g.i < @graph_iterations::int
),
graph_mass AS MATERIALIZED (
  SELECT n.id, f.r[n.ord] AS mass
  FROM graph_p n
  CROSS JOIN (SELECT r FROM graph_ppr ORDER BY i DESC LIMIT 1) f
),
graph_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank, x.score
  FROM (
    SELECT mn.memory_id AS id, sum(g.mass) AS score
    FROM graph_mass g
    JOIN recall.mentions mn ON mn.entity_id = g.id
    JOIN recall.memories m ON m.id = mn.memory_id
    WHERE g.mass > 0
      AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
            @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
    GROUP BY mn.memory_id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @graph_k::int
)
