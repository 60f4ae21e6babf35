-- bm25: Okapi BM25 over the source title and the text (lexical.sql's bm25_scored), best
-- first, with the passage that scored (the pack may give it instead of the whole memory).
bm25_lane AS (
  SELECT id, row_number() OVER (ORDER BY score DESC, id) AS rank, score, passage
  FROM bm25_scored
  ORDER BY score DESC, id
  LIMIT @bm25_k::int
)
