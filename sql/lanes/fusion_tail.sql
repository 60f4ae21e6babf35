-- The statement's output, one row per fused candidate, scanned by column name
-- (statement/candidate.go). The recency and frequency terms need every candidate's access
-- row; the memory, its source and its entity names are read only for the k kept.
SELECT t.id, t.lane_ranks, t.lane_scores, t.direct, t.rrf, t.fused, t.last_accessed, t.access_count,
       m.external_id, m.kind, m.text, m.tags, m.metadata, m.occurred_start, m.occurred_end,
       m.source_id, coalesce(s.title, '') AS source_title, coalesce(s.uri, '') AS source_uri,
       m.position, m.speaker,
       ARRAY(SELECT e.name FROM recall.mentions mn JOIN recall.entities e ON e.id = mn.entity_id
             WHERE mn.memory_id = t.id AND NOT mn.speaker ORDER BY e.name, e.id) AS entities
FROM (
  SELECT f.*,
         f.rrf
           + @w_recency::float8 * coalesce(exp(-ln(2) * extract(epoch FROM @now::timestamptz - ac.last_accessed) / @recency_half_life::float8), 0)
           + @w_frequency::float8 * ln(1 + coalesce(ac.access_count, 0)) AS fused,
         ac.last_accessed, coalesce(ac.access_count, 0) AS access_count
  FROM fused_rrf f
  LEFT JOIN recall.memory_access ac ON ac.memory_id = f.id
  ORDER BY fused DESC, f.id
  LIMIT @k::int
) t
JOIN recall.memories m ON m.id = t.id
LEFT JOIN recall.sources s ON s.id = m.source_id
ORDER BY t.fused DESC, t.id
