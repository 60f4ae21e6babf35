-- The statement's output, scanned by column name (statement/candidate.go): the k fused
-- candidates, best first, then the neighbours that the best context_hits of them need to be
-- read (context_of names the candidate): the turn after a question, spoken by someone else,
-- of at most context_answer words (why 'answer': a longer one, an assistant's essay, stands
-- on its own and is ranked on its own), and the turn before a reply of at most context_short
-- words ('reply_to'). A
-- neighbour has the candidate's source and scope set, passes the filters, and holds
-- (recall.holds); a candidate that does not hold brings none.
-- The recency and frequency terms (output_access.sql) need every candidate's access row; the
-- memory, its source and its entity names are read only for the k kept. A summary comes with the visible
-- memories it covers (covers). With @graph_context, each candidate comes with the visible
-- relations between an entity it mentions and one the query names ({{graph_context}}: the
-- graph_context_k with the most graph mass, NULL for a plan without the query's entities).
-- A long memory the bm25 lane scored by a passage comes with that passage's character bounds
-- (passage_start, passage_end: memories.passages), which the pack may give instead.
-- Contract with a recall across workers (statement/spread.go; TestEveryFormRunsEveryLane builds
-- its rounds for every plan and fails when this no longer holds): its output round puts its own
-- output_top in this one's place and takes output_hits whole, each found by its name at the
-- start of its line.
output_top AS MATERIALIZED (
  SELECT a.*, a.rrf + a.recency + a.frequency AS fused
  FROM output_access a
  ORDER BY fused DESC, a.id
  LIMIT @k::int
),
output_hits AS MATERIALIZED (
  SELECT t.id, m.source_id, m.position, m.scopes, m.speaker, m.is_question, m.text
  FROM output_top t
  JOIN {{recall.memories}} m ON m.id = t.id
  WHERE m.position IS NOT NULL
    AND recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz)
  ORDER BY t.fused DESC, t.id
  LIMIT @context_hits::int
),
output_context AS (
  SELECT n.id, h.id AS context_of, x.why
  FROM output_hits h
  CROSS JOIN LATERAL (VALUES (h.position + 1, 'answer'), (h.position - 1, 'reply_to')) AS x(position, why)
  JOIN {{recall.memories}} n ON n.source_id = h.source_id AND n.position = x.position
  WHERE n.scopes = h.scopes
    AND CASE x.why WHEN 'answer' THEN h.is_question AND n.speaker <> h.speaker
                                      AND cardinality(regexp_split_to_array(btrim(n.text), '\s+')) <= @context_answer::int
                   ELSE cardinality(regexp_split_to_array(btrim(h.text), '\s+')) <= @context_short::int END
    AND recall.passes(n.kind, n.tags, n.metadata, n.occurred_start, {{filter}})
    AND recall.holds(n.valid_from, n.valid_until, n.superseded_by, n.superseded_at, n.expires_at, @as_of::timestamptz, @now::timestamptz)
)
SELECT u.id, u.lane_ranks, u.lane_scores, u.direct, u.rrf, u.fused, u.last_accessed, u.access_count,
       u.context_of, u.context_why,
       m.external_id, m.kind, m.text, m.tags, m.metadata, m.occurred_start, m.occurred_end,
       m.source_id, coalesce(s.title, '') AS source_title, coalesce(s.uri, '') AS source_uri,
       s.external_id AS source_external_id, s.occurred_at AS source_occurred_at, s.metadata AS source_metadata,
       m.position, m.speaker,
       CASE WHEN m.kind = 'summary' THEN
         ARRAY(SELECT sc.memory_id FROM {{recall.summary_coverage}} sc JOIN {{recall.memories}} cm ON cm.id = sc.memory_id
               WHERE sc.summary_id = u.id ORDER BY sc.memory_id)
       END AS covers,
       CASE WHEN @graph_context::bool AND u.part = 0 THEN {{graph_context}} END AS graph_context,
       -- Each name by its entity's key from the memory's mentions: a join was planned as a
       -- scan of the visible entities for every candidate. Without @entity_names NULL: the
       -- caller reads the names of the memories it keeps (recall.entity_names), as a long
       -- message names about nine entities and a hundred candidates' names were the most
       -- buffers a LongMemEval recall read.
       CASE WHEN @entity_names::bool THEN
         ARRAY(SELECT x.name FROM (
                 SELECT (SELECT e.name FROM {{recall.entities}} e WHERE e.id = mn.entity_id) AS name, mn.entity_id
                 FROM {{recall.mentions}} mn WHERE mn.memory_id = u.id AND NOT mn.speaker) x
               ORDER BY x.name, x.entity_id)
       END AS entities,
       recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz) AS holds,
       m.valid_from, m.valid_until, m.superseded_at, m.expires_at,
       lower(m.passages[u.passage]) AS passage_start, upper(m.passages[u.passage]) AS passage_end,
       CASE WHEN m.superseded_by IS NOT NULL THEN
         (SELECT b.external_id FROM {{recall.memories}} b WHERE b.id = m.superseded_by AND b.scopes = m.scopes)
       END AS superseded_by
FROM (
  SELECT t.id, t.lane_ranks, t.lane_scores, t.direct, t.rrf, t.fused, t.last_accessed, t.access_count,
         NULL::bigint AS context_of, NULL::text AS context_why, 0 AS part, t.passage
  FROM output_top t
  UNION ALL
  SELECT c.id, NULL, NULL, false, 0, 0, NULL, 0, c.context_of, c.why, 1, NULL
  FROM output_context c
) u
JOIN {{recall.memories}} m ON m.id = u.id
LEFT JOIN {{recall.sources}} s ON s.id = m.source_id
-- A memory that does not hold (expired at now, migration 00008; outside its validity or
-- superseded at as_of, 00009: recall.holds) is left out here, where its row is read anyway: it
-- may have taken one of the k places, so a recall returns fewer than k when some do not hold.
-- With @keep_stale (a trace, or a recall that marks them) such a candidate is kept, with
-- holds false and what it needs to say why; a neighbour always holds. A memory linked as a
-- duplicate of another (migration 00011) is never given: the one it restates is.
WHERE (@keep_stale::bool AND u.part = 0
       OR recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz))
  AND m.duplicate_of IS NULL
ORDER BY u.part, u.fused DESC, u.id, u.context_of
