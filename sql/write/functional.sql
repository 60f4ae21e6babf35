-- A relation of a functional predicate (one value at a time for a subject, as lives_in or
-- works_at: write.Writer.Functional) written with an evidence memory supersedes, through it,
-- the evidence memories of the scope set's relations of the same subject and predicate and
-- another object: they stop holding from the new evidence's valid_from, else its
-- occurred_start, else the write's time (@now). An older evidence later in time than the new one
-- (history written out of order) is left alone, as is one superseded already. @rows is a
-- JSON array of the batch's relations {"src", "dst", "predicate", "memory"}. Runs as the
-- writer, under row security, within the batch's scope set.
UPDATE recall.memories old
SET superseded_by = n.memory,
    superseded_at = coalesce(nm.valid_from, nm.occurred_start, @now::timestamptz)
FROM jsonb_to_recordset(@rows::jsonb) AS n(src bigint, dst bigint, predicate text, memory bigint)
JOIN recall.memories nm ON nm.id = n.memory AND nm.scopes = @scopes::text[]
JOIN recall.relations r ON r.scopes = @scopes::text[] AND r.src_id = n.src AND r.predicate = n.predicate
                       AND r.dst_id <> n.dst AND r.memory_id IS NOT NULL
WHERE n.predicate = ANY (@functional::text[])
  AND old.id = r.memory_id AND old.scopes = @scopes::text[] AND old.id <> n.memory
  AND old.superseded_by IS NULL
  AND coalesce(old.valid_from, old.occurred_start, old.created_at) <= coalesce(nm.valid_from, nm.occurred_start, nm.created_at)
