-- vector: cosine distance to the query embedding, by one of two branches; a one-time filter
-- on the number of memories the caller sees (visible_sets) runs exactly one of them.
-- * At most vector_exact_max visible memories: exact search. The caller's memories are read
--   by scope-set key (one index probe per visible scope set) and every distance computed.
-- * More: pgvector HNSW. {{dim}} is the statement's embedding dimension; the expression and
--   predicate repeat the partial index's (recall.ensure_vector_index). The executor turns on
--   iterative index scans, so rows hidden by row security or filtered out do not starve the
--   lane: the scan goes on until vector_k rows pass. Its cost grows as the caller's share of
--   the memories shrinks, which is why small readers take the exact branch.
vector_visible AS MATERIALIZED (
  SELECT coalesce(sum(docs), 0)::bigint AS n FROM visible_sets
),
vector_hits AS MATERIALIZED (
  (SELECT m.id, m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}}) AS distance
   FROM recall.memories m
   WHERE (SELECT n FROM vector_visible) > @vector_exact_max::bigint
     AND vector_dims(m.embedding) = {{dim}}
     AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
           @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
   ORDER BY m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}})
   LIMIT @vector_k::int)
  UNION ALL
  (SELECT m.id, m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}}) AS distance
   FROM visible_sets s
   JOIN recall.memories m ON m.scope_key = s.scope_key
   WHERE (SELECT n FROM vector_visible) <= @vector_exact_max::bigint
     AND vector_dims(m.embedding) = {{dim}}
     AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
           @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
   ORDER BY 2, m.id
   LIMIT @vector_k::int)
),
vector_lane AS (
  SELECT id, row_number() OVER (ORDER BY distance, id) AS rank, 1 - distance AS score
  FROM vector_hits
  WHERE distance <= @vector_max_distance::float8
)
