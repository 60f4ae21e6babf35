-- graph (1 of 4, with graph_walk, graph_rank and graph_score): personalized PageRank over the visible entity graph, seeded by the question, scoring
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
  JOIN {{recall.mentions}} mn ON mn.memory_id = h.id AND NOT mn.speaker
)
