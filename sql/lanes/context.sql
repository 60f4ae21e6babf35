-- context: every memory scored with the words it is read with. A memory with a place in its
-- source (a conversation's turn, a document's chunk) is scored by BM25 over its text and, at
-- context_weight, its neighbours' (the memories one place before and after it, same source and
-- scope set, and two places away past a short one: sql/write/bm25.sql), with the statistics of the memories with a place (cidf; avgdl over their lengths
-- with the neighbours' at the same weight): a turn that only makes sense after the one before
-- it ("Yes, last week!") is found through that one's words. A memory without a place is read
-- alone: its score is its own BM25, as the bm25 lane scores it. So a note and a turn that match
-- the question equally rank alike here, and a scope holding both kinds of memory is not
-- ranked by kind. Then a question hands its score on: the turn right after a question, spoken
-- by someone else, scores at least context_handoff times the question's score, so the answer
-- rises with its question. At least, not in addition: an answer ranks by the better of its own
-- words and what its question hands it, never above its question on the question's words
-- alone (summed, a reply that echoes the question, as an assistant's does, outranked the turn
-- that said the thing: LongMemEval dev nDCG@10 0.517 summed, 0.582 by the better).
context_scored AS MATERIALIZED (
  SELECT x.id, x.score
  FROM (
    SELECT DISTINCT ON (b.id) b.id,
           sum(b.cidf * (b.tf + @context_weight::float8 * b.ntf) * (@bm25_k1::float8 + 1)
               / ((b.tf + @context_weight::float8 * b.ntf)
                  + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * (b.doc_len + @context_weight::float8 * b.ndoc_len)
                    / greatest((s.clen + @context_weight::float8 * s.cnlen) / nullif(s.cn, 0), 1))))
             OVER (PARTITION BY b.id ORDER BY b.term ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS score
    FROM bm25_parts b
    CROSS JOIN visible_stats s
    WHERE b.positioned AND (b.tf > 0 OR @context_weight::float8 > 0)
    ORDER BY b.id
  ) x
  UNION ALL
  -- A memory without a place: its own BM25, which bm25_scored has already summed.
  SELECT c.id, c.score FROM bm25_scored c WHERE NOT c.positioned
),
-- The context_k best: a question among them hands its score on.
context_top AS MATERIALIZED (
  SELECT id, score FROM context_scored ORDER BY score DESC, id LIMIT @context_k::int
),
-- The turn after is read in a subquery ordered by place, which keeps it a probe of the
-- (source, place) index: joined directly, it was planned as a scan of the source's memories
-- (28 us a question on LoCoMo, 7 by the place, when a second index by source alone existed).
context_handoff AS (
  SELECT n.id, q.id AS question, @context_handoff::float8 * c.score AS score
  FROM context_top c
  JOIN {{recall.memories}} q ON q.id = c.id
  CROSS JOIN LATERAL (
    SELECT n.id
    FROM {{recall.memories}} n
    WHERE n.source_id = q.source_id AND n.position = q.position + 1 AND n.scopes = q.scopes AND n.speaker <> q.speaker
      AND recall.passes(n.kind, n.tags, n.metadata, n.occurred_start, {{filter}})
    ORDER BY n.position
  ) n
  WHERE @context_handoff::float8 > 0 AND q.is_question
),
context_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank, x.score
  FROM (
    SELECT u.id, max(u.score) AS score
    FROM (SELECT id, score FROM context_scored UNION ALL SELECT id, score FROM context_handoff) u
    GROUP BY u.id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @context_k::int
)
