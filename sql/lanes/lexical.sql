-- lexical: what the bm25 and context lanes share: the query's terms with their idf, the
-- candidates, and every (candidate, query term) posting. Okapi BM25 over the source title and
-- the text, with the caller's statistics.
-- bm25_corpus and bm25_terms are kept per scope set and read under row security, so N, avgdl
-- and df count exactly the rows the caller can see. Candidates are the best bm25_postings
-- postings per query term and visible scope set (impact order, found by the scope set's text
-- key: = on text[] is not leakproof, so under row security it cannot be an index condition;
-- NULL reads them all, which the executor does when filters are set). Each candidate is then
-- scored exactly over every query term, summed in term order so the score does not depend on
-- the plan: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part = tf (k1 + 1) / (tf + k1 (1 -
-- b + b dl / avgdl)). A term the caller sees in at most bm25_whole memories is read whole
-- from the lookup index, which carries tf and doc_len, and joined to the
-- candidates; a more common term is probed once per candidate on (memory_id, term) (same
-- scores either way; reading a list whole is the cheaper of the two). Postings carry
-- their memory's scopes, so they are visible exactly when it is: the memory itself is read
-- only when filters are set (f_none false).
-- A term of the question weighs 1; one only its expansion has (Query.Expansion) weighs
-- expansion_weight, which scales its idf, so its share of every score. Without expansion
-- words, or at weight 0, the terms are the question's alone.
bm25_terms_q AS MATERIALIZED (
  SELECT x.term, max(x.w) AS w
  FROM (
    SELECT l.lexeme AS term, 1::float8 AS w FROM unnest(to_tsvector('english', @qtext::text)) AS l
    UNION ALL
    SELECT l.lexeme, @expansion_weight::float8 FROM unnest(to_tsvector('english', @xtext::text)) AS l
    WHERE @expansion_weight::float8 > 0
  ) x
  GROUP BY x.term
),
-- cidf is the context lane's: over the memories with a place, counting a term in a memory's
-- neighbours as in the memory. A term's posting list holds both kinds, so it is read whole
-- when the larger count is at most bm25_whole.
-- Contract with a recall across workers (statement/spread.go; TestEveryFormRunsEveryLane builds
-- its rounds for every plan and fails when this no longer holds): its lanes round reads the
-- terms' document frequencies summed over every worker in place of the text
-- "FROM {{recall.bm25_terms}} t WHERE t.term = q.term" below, which must stay as it is.
bm25_idf AS MATERIALIZED (
  SELECT q.term, q.w * ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf,
         q.w * ln(1 + (s.cn - d.cdf + 0.5) / (d.cdf + 0.5)) AS cidf,
         greatest(d.df, d.cdf) <= @bm25_whole::int AS whole
  FROM bm25_terms_q q
  CROSS JOIN visible_stats s
  CROSS JOIN LATERAL (SELECT coalesce(sum(t.df), 0)::float8 AS df, coalesce(sum(t.cdf), 0)::float8 AS cdf
                      FROM {{recall.bm25_terms}} t WHERE t.term = q.term) d
  WHERE d.df > 0 OR d.cdf > 0
),
bm25_candidates AS MATERIALIZED (
  SELECT DISTINCT p.memory_id AS id
  FROM bm25_idf q
  CROSS JOIN visible_sets s
  CROSS JOIN LATERAL (
    SELECT p.memory_id FROM {{recall.bm25_postings}} p
    WHERE p.scope_key = s.scope_key AND p.term = q.term
    ORDER BY p.impact DESC
    LIMIT @bm25_postings::int
  ) p
  WHERE @f_none::bool OR EXISTS (
    SELECT 1 FROM {{recall.memories}} m
    WHERE m.id = p.memory_id AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}))
),
-- Not materialized: the candidate test of bm25_parts runs as each list is read, and the
-- postings of other memories are dropped there instead of being stored first.
bm25_whole AS (
  SELECT q.term, q.idf, q.cidf, p.memory_id, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len
  FROM bm25_idf q
  CROSS JOIN visible_sets s
  CROSS JOIN LATERAL (
    SELECT p.memory_id, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len FROM {{recall.bm25_postings}} p
    WHERE p.scope_key = s.scope_key AND p.term = q.term
    -- One list per term and set: pulled up, a generic plan made on small tables read
    -- every scope's postings once and kept them for every term.
    OFFSET 0
  ) p
  WHERE q.whole
),
bm25_parts AS (
  SELECT w.memory_id AS id, w.term, w.idf, w.cidf, w.tf, w.doc_len, w.ntf, w.ndoc_len, w.positioned, w.ptf, w.pdoc_len
  FROM bm25_whole w
  -- IS TRUE keeps Postgres from turning the IN into a join, which on a small corpus it
  -- planned as a nested loop over both CTEs: as a sublink it is
  -- always a hashed subplan.
  WHERE (w.memory_id IN (SELECT id FROM bm25_candidates)) IS TRUE
  UNION ALL
  -- One probe of (memory_id, term) per candidate and common term; LIMIT 1 (the pair is the
  -- key) keeps the planner from turning this into a read of every posting of each candidate.
  SELECT c.id, q.term, q.idf, q.cidf, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len
  FROM bm25_candidates c
  CROSS JOIN bm25_idf q
  CROSS JOIN LATERAL (
    SELECT p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len FROM {{recall.bm25_postings}} p
    WHERE p.memory_id = c.id AND p.term = q.term
    LIMIT 1
  ) p
  WHERE NOT q.whole
),
-- bm25_own: Okapi BM25 of every candidate whose own text has a query term, summed in term
-- order so the score does not depend on the plan: idf = ln(1 + (N - df + 0.5) / (df + 0.5)),
-- tf part = tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).
bm25_own AS (
  -- Summed in term order over one sort (a window processes rows in its ORDER BY).
  SELECT DISTINCT ON (b.id) b.id,
         sum(b.idf * b.tf * (@bm25_k1::float8 + 1)
             / (b.tf + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * b.doc_len / s.avgdl)))
           OVER (PARTITION BY b.id ORDER BY b.term ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS score,
         b.positioned
  -- Each part carries its term's idf: a join back to bm25_idf was planned as a nested loop
  -- over the parts on its low estimate (26,724 comparisons for a 12-term SciFact claim).
  FROM bm25_parts b
  CROSS JOIN visible_stats s
  WHERE b.tf > 0
  ORDER BY b.id
),
-- bm25_passage: the best passage of a candidate with passages (migration 00015: a memory
-- of more than recall.passage_words() words), by the same BM25 with the same statistics, the
-- passage read as a document (its tf and length in lexeme occurrences: the parts' ptf and
-- pdoc_len, which the postings carry), summed in term order; ties go to the first passage.
bm25_passage AS (
  SELECT DISTINCT ON (x.id) x.id, x.ord::int AS ord, x.score
  FROM (
    SELECT b.id, u.ord,
           sum(b.idf * u.tf * (@bm25_k1::float8 + 1)
               / (u.tf + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * u.len / s.avgdl)) ORDER BY b.term) AS score
    FROM bm25_parts b
    CROSS JOIN LATERAL unnest(b.ptf, b.pdoc_len) WITH ORDINALITY AS u(tf, len, ord)
    CROSS JOIN visible_stats s
    WHERE b.ptf IS NOT NULL AND u.tf > 0
    GROUP BY b.id, u.ord
  ) x
  ORDER BY x.id, x.score DESC, x.ord
),
-- bm25_scored: each candidate's BM25, the better of its whole text's and its best
-- passage's, with that passage (its place in memories.passages, from 1; NULL for a memory
-- without passages). The bm25 lane ranks it; the graph lane seeds from and scores within its
-- best; the context lane takes it for a memory without a place (positioned: whether the
-- memory has one).
bm25_scored AS (
  SELECT o.id, greatest(o.score, p.score) AS score, o.positioned, p.ord AS passage
  FROM bm25_own o
  LEFT JOIN bm25_passage p ON p.id = o.id
)
