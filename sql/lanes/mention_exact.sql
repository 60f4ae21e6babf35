-- mention (exact): entities whose lowered name or alias is one of the query's mentions
-- (qentities: the word n-grams of the raw query, lowered), found by recall.probe_entities
-- (an index probe; see entity_probe.sql) and joined back under row security.
mention_entities AS MATERIALIZED (
  SELECT e.id, p.sim
  FROM {{probe_entities @qentities::text[], false, 1.0}} p
  -- By key, one probe per row (OFFSET 0), as mention_fuzzy.sql says.
  CROSS JOIN LATERAL (SELECT e.id FROM {{recall.entities}} e WHERE e.id = p.id OFFSET 0) e
)
