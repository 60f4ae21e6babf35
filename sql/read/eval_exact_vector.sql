-- aizk-eval's plain baseline beside the engine's plans: the k memories the caller sees
-- nearest to @qvec by exact cosine distance (every visible row compared, no index, no lane,
-- no fusion, no order), ties by id. Run as the caller under row security, as a recall is.
-- Only memories embedded at the query's dimension are compared, as in the vector lane.
SELECT m.external_id
FROM recall.memories m
WHERE vector_dims(m.embedding) = vector_dims(@qvec::vector)
  AND m.duplicate_of IS NULL
ORDER BY m.embedding <=> @qvec::vector, m.id
LIMIT @k::int
