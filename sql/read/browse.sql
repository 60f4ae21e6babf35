-- Engine.Browse: the caller's memories matching the filters, read under row security, per
-- scope set the caller sees (recall.visible_corpus, then the scope set's keys: the work grows
-- with the rows the caller sees, never with another tenant's). Newest first by
-- occurred_start (memories without a time first), then id; with @source, the source's
-- memories in place order. Each row carries its source, its access count and last access,
-- and what superseded it or what it duplicates. @limit + 1 rows after @offset: the extra row
-- tells that there is more. An empty text filter matches every row. internal_id is the order's
-- last key: on a Citus cluster each scope set the caller sees is read on its shard and the
-- pages are merged in that order (Engine.Browse).
WITH sets AS MATERIALIZED (
  SELECT c.scopes, recall.scope_key(c.scopes) AS k
  FROM {{visible_corpus}} c
  WHERE @scope::text = '' OR @scope::text = ANY (c.scopes)
),
src AS MATERIALIZED (
  SELECT s.id FROM sets JOIN {{recall.sources}} s ON s.scopes = sets.scopes AND s.external_id = @source::text
  WHERE @source::text <> ''
),
picked AS (
  SELECT m.*
  FROM sets
  CROSS JOIN LATERAL (
    SELECT m.id, m.external_id, m.scopes, m.kind, m.text, m.speaker, m.source_id, m.position, m.occurred_start,
           m.tags, m.superseded_by, m.duplicate_of, m.expires_at, m.valid_from, m.valid_until
    FROM {{recall.memories}} m
    WHERE m.scope_key = sets.k AND m.scopes = sets.scopes
      AND (@source::text = '' OR m.source_id IN (SELECT id FROM src))
      AND (@kind::text = '' OR m.kind = @kind::text)
      AND (@tag::text = '' OR m.tags @> ARRAY[@tag::text])
      AND (@text::text = '' OR strpos(lower(m.text), lower(@text::text)) > 0)
      AND (@from::timestamptz IS NULL OR m.occurred_start >= @from::timestamptz)
      AND (@to::timestamptz IS NULL OR m.occurred_start < @to::timestamptz)
    ORDER BY CASE WHEN @source::text <> '' THEN m.position END, m.occurred_start DESC NULLS FIRST, m.id DESC
    LIMIT @limit::int + @offset::int + 1
  ) m
)
SELECT p.id AS internal_id, p.external_id AS id, p.scopes, p.kind, p.text, p.speaker, s.external_id AS source, s.title AS source_title,
       p.position, p.occurred_start, p.tags, coalesce(a.access_count, 0) AS access_count, a.last_accessed,
       sb.external_id AS superseded_by, d.external_id AS duplicate_of, p.expires_at, p.valid_from, p.valid_until
FROM picked p
LEFT JOIN {{recall.sources}} s ON s.id = p.source_id AND s.scopes = p.scopes
LEFT JOIN {{recall.memory_access}} a ON a.memory_id = p.id AND a.scopes = p.scopes
LEFT JOIN {{recall.memories}} sb ON sb.id = p.superseded_by AND sb.scopes = p.scopes
LEFT JOIN {{recall.memories}} d ON d.id = p.duplicate_of AND d.scopes = p.scopes
ORDER BY CASE WHEN @source::text <> '' THEN p.position END, p.occurred_start DESC NULLS FIRST, p.id DESC
OFFSET @offset::int
LIMIT @limit::int + 1
