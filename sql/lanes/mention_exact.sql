-- mention (exact): entities whose lowered name or alias is one of the query's mentions
-- (qentities: the word n-grams of the raw query, lowered).
mention_entities AS MATERIALIZED (
  SELECT e.id, 1.0::float8 AS sim
  FROM recall.entities e
  WHERE e.keys && @qentities::text[]
)
