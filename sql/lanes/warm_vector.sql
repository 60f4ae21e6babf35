-- Warm-up (statement.Warm): one HNSW scan of the dimension's vector index, as the vector
-- lane's approximate branch reads it (sql/lanes/vector_hits.sql): the first HNSW scan of a
-- session is slow. Run only where the index exists (else it would scan the table), with
-- iterative scans off, so the walk stops after ef_search candidates however many rows row
-- security hides.
SELECT count(*) FROM (
  SELECT 1 FROM recall.memories m
  WHERE vector_dims(m.embedding) = {{dim}}
  ORDER BY m.embedding::vector({{dim}}) <=> @qvec::vector({{dim}})
  LIMIT @vector_k::int
) x
