-- bm25: Okapi BM25 over the source title and the text (the lexical input's parts of the
-- memories whose own text has a query term), summed in term order so the score does not
-- depend on the plan: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part = tf (k1 + 1) / (tf
-- + k1 (1 - b + b dl / avgdl)).
bm25_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank, x.score
  FROM (
    -- Summed in term order over one sort (a window processes rows in its ORDER BY).
    SELECT DISTINCT ON (b.id) b.id,
           sum(b.idf * b.tf * (@bm25_k1::float8 + 1)
               / (b.tf + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * b.doc_len / s.avgdl)))
             OVER (PARTITION BY b.id ORDER BY b.term ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS score
    -- Each part carries its term's idf: a join back to bm25_idf was planned as a nested loop
    -- over the parts on its low estimate (26,724 comparisons for a 12-term SciFact claim).
    FROM bm25_parts b
    CROSS JOIN visible_stats s
    WHERE b.tf > 0
    ORDER BY b.id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @bm25_k::int
)
