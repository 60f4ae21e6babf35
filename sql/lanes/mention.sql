-- mention: memories that mention the entities the query names, by best name similarity.
mention_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank, x.score
  FROM (
    SELECT mn.memory_id AS id, max(me.sim) AS score
    FROM mention_entities me
    JOIN recall.mentions mn ON mn.entity_id = me.id
    JOIN recall.memories m ON m.id = mn.memory_id
    WHERE recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
            @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
    GROUP BY mn.memory_id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @mention_k::int
)
