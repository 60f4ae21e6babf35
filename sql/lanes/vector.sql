-- vector: the vector hits (vector_hits.sql) within vector_max_distance, nearest first; the
-- score is the cosine similarity.
vector_lane AS (
  SELECT id, row_number() OVER (ORDER BY distance, id) AS rank, 1 - distance AS score
  FROM vector_hits
  WHERE distance <= @vector_max_distance::float8
)
