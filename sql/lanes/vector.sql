-- vector: pgvector HNSW, cosine distance. {{dim}} is the statement's embedding dimension; the
-- expression and predicate repeat the partial index's (recall.ensure_vector_index). The
-- executor turns on iterative index scans, so rows hidden by row security or filtered out do
-- not starve the lane: the scan goes on until vector_k rows pass.
vector_hits AS MATERIALIZED (
  SELECT m.id, m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}}) AS distance
  FROM recall.memories m
  WHERE vector_dims(m.embedding) = {{dim}}
    AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
          @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
  ORDER BY m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}})
  LIMIT @vector_k::int
),
vector_lane AS (
  SELECT id, row_number() OVER (ORDER BY distance, id) AS rank, 1 - distance AS score
  FROM vector_hits
  WHERE distance <= @vector_max_distance::float8
)
