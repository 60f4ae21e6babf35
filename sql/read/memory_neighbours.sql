-- Engine.Memory's neighbours: the memories of the same source within @span places of
-- @position, in place order (the memory itself among them), under row security.
SELECT m.external_id AS id, m.kind, m.text, m.speaker, m.position, m.occurred_start
FROM {{recall.memories}} m
WHERE m.source_id = @source::bigint AND m.scopes = @scopes::text[]
  AND m.position BETWEEN @position::int - @span::int AND @position::int + @span::int
ORDER BY m.position, m.id
