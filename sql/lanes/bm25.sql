-- bm25: Okapi BM25 over the source title and the text (lexical.sql's bm25_scored), best
-- first.
bm25_lane AS (
  SELECT id, row_number() OVER (ORDER BY score DESC, id) AS rank, score
  FROM bm25_scored
  ORDER BY score DESC, id
  LIMIT @bm25_k::int
)
