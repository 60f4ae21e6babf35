-- A skipped duplicate (Batch.Duplicates "skip") is counted on the memory it restates, with
-- its source: metadata.restatements is how many writes restated the memory, and
-- metadata.restated_in the external ids of the sources they came from, each once (the first
-- 100: the count goes on). A value of either key that is not of its type (set by the
-- caller) is replaced. @rows is a JSON array of {"i" (the order of the restatements), "id" (the
-- stored memory), "source" (the skipped memory's source external id, or null)}. Runs as the writer, under row security.
UPDATE recall.memories m
SET metadata = m.metadata || jsonb_build_object(
      'restatements', x.n + CASE WHEN jsonb_typeof(m.metadata -> 'restatements') = 'number'
                                 THEN (m.metadata ->> 'restatements')::numeric ELSE 0 END,
      'restated_in', (SELECT coalesce(jsonb_agg(s.v ORDER BY s.o, s.v), '[]')
                      FROM (SELECT v, min(o) AS o
                            FROM (SELECT e.v, e.o FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(m.metadata -> 'restated_in') = 'array'
                                                                                      THEN m.metadata -> 'restated_in' ELSE '[]' END) WITH ORDINALITY AS e(v, o)
                                  UNION ALL
                                  SELECT u.v, 1000000 + u.o FROM unnest(x.sources) WITH ORDINALITY AS u(v, o)) a
                            GROUP BY v ORDER BY min(o), v LIMIT 100) s))
FROM (SELECT r.id, count(*) AS n, coalesce(array_agg(r.source ORDER BY r.i) FILTER (WHERE r.source IS NOT NULL), '{}') AS sources
      FROM jsonb_to_recordset(@rows::jsonb) AS r(i int, id bigint, source text)
      GROUP BY r.id) x
WHERE m.id = x.id AND m.scopes = @scopes::text[]
