-- graph (4 of 4): the memories of the pool scored by the mass of the top entities they
-- mention (graph_rank.sql).
-- The memories the lane may score. Both lists are already filtered by the lanes that made them.
graph_pool AS MATERIALIZED (
  (SELECT id FROM bm25_scored ORDER BY score DESC, id LIMIT @graph_pool::int)
  UNION
  SELECT id FROM vector_hits WHERE distance <= @vector_max_distance::float8
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
    JOIN {{recall.mentions}} mn ON mn.memory_id = p.id AND NOT mn.speaker
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
