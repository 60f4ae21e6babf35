-- mention: memories that mention the entities the query names. An entity counts for how
-- well the query names it and how rare it is among the caller's memories:
--   w = sim * ln(1 + (N - df + 0.5) / (df + 0.5))
-- with N the caller's visible memories (visible_stats) and df
-- the visible memories that mention it (a speaker is not mentioned by what it says), so a name every memory carries ("Patients") weighs
-- little. A memory scores the sum of w over the named entities it mentions (in entity
-- order, so the sum does not depend on the plan); each entity gives at most
-- mention_postings of its newest memories (NULL: all, which the executor uses with filters).
mention_weights AS MATERIALIZED (
  SELECT me.id, me.sim * ln(1 + (c.n - d.df + 0.5) / (d.df + 0.5)) AS w
  FROM mention_entities me
  CROSS JOIN visible_stats c
  CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM {{recall.mentions}} mn WHERE mn.entity_id = me.id AND NOT mn.speaker) d
),
-- Memories that mention the same named entities tie, and share their mid rank: the lane
-- cannot tell them apart, so none of them gets a better rank than the others by its id.
-- ties counts them, before the LIMIT (a cross-worker recall numbers the ranks again: spread.go).
mention_lane AS (
  SELECT x.id, rank() OVER (ORDER BY x.score DESC) + (count(*) OVER (PARTITION BY x.score) - 1) / 2 AS rank, x.score,
         count(*) OVER (PARTITION BY x.score) AS ties
  FROM (
    SELECT mn.memory_id AS id, sum(mw.w ORDER BY mw.id) AS score
    FROM mention_weights mw
    CROSS JOIN LATERAL (
      SELECT mn.memory_id FROM {{recall.mentions}} mn
      WHERE mn.entity_id = mw.id AND NOT mn.speaker
      ORDER BY mn.memory_id DESC
      LIMIT @mention_postings::int
    ) mn
    -- A visible mention names a visible memory (they share scopes: the mentions table's key): the
    -- memory is read only when filters are set.
    WHERE @f_none::bool OR EXISTS (
      SELECT 1 FROM {{recall.memories}} m
      WHERE m.id = mn.memory_id AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}))
    GROUP BY mn.memory_id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @mention_k::int
)
