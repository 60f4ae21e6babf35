-- vector_hits: cosine distance to the query embedding, by one of two branches; a one-time filter
-- on n, the number of memories the caller sees (visible_stats), and N, all memories (the
-- planner's estimate in pg_class, which every role can read), runs exactly one of them.
-- Exact search costs about n row reads; HNSW under row security visits about k N / n rows
-- to find k visible ones. So:
-- * n^2 <= vector_exact_scale * N: exact search, every distance computed. Without filters,
--   recall.vector_nearest (sql/lanes/vector_exact.sql) reads the caller's embeddings by
--   index only; with filters, the caller's memories are read by scope-set key (one index
--   probe per visible scope set) and each tested.
-- * Otherwise: pgvector HNSW. {{dim}} is the statement's embedding dimension; the expression and
--   predicate repeat the partial index's (recall.ensure_vector_index). The executor turns on
--   iterative index scans, so rows hidden by row security or filtered out do not starve the
--   lane: the scan goes on until vector_k rows pass. Its cost grows as the caller's share of
--   the memories shrinks, which is why small readers take the exact branch.
vector_visible AS MATERIALIZED (
  SELECT v.n ^ 2 <= @vector_exact_scale::float8 * greatest(c.reltuples, v.n, 1) AS exact
  FROM visible_stats v
  CROSS JOIN {{memories_reltuples}} c
),
vector_hits AS MATERIALIZED (
  (SELECT m.id, m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}}) AS distance
   FROM {{recall.memories}} m
   WHERE NOT (SELECT exact FROM vector_visible)
     AND vector_dims(m.embedding) = {{dim}}
     AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}})
   ORDER BY m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}})
   LIMIT @vector_k::int)
  UNION ALL
  (SELECT h.id, h.distance
   FROM {{vector_nearest}} h
   WHERE (SELECT exact FROM vector_visible) AND @f_none::bool)
  UNION ALL
  (SELECT m.id, m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}}) AS distance
   FROM visible_sets s
   -- Each visible set's memories by its key (OFFSET 0: joined, a generic plan made on
   -- small tables read every set's).
   CROSS JOIN LATERAL (
     SELECT m.id, m.embedding FROM {{recall.memories}} m
     WHERE m.scope_key = s.scope_key AND vector_dims(m.embedding) = {{dim}}
       AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}})
     OFFSET 0
   ) m
   WHERE (SELECT exact FROM vector_visible) AND NOT @f_none::bool
   ORDER BY 2, m.id
   LIMIT @vector_k::int)
)
