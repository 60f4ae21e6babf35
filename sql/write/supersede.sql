-- Mark memories of the batch's scope set as superseded. @rows is a JSON array of {"old",
-- "by", "at"}: memory ids, and when the old one stopped holding (NULL: the superseding
-- memory's valid_from, else its occurred_start, else @now, the write's time). @note, when
-- not empty, says who proposed it (recall consolidate), kept in the old memory's metadata as
-- superseded_note. Runs as the writer, under row security; the key on (superseded_by,
-- scopes) keeps both in the scope set. No subquery and no clock function in the SET: Citus
-- refuses both where it routes an update.
UPDATE recall.memories m
SET metadata = CASE WHEN @note::text = '' THEN m.metadata ELSE m.metadata || jsonb_build_object('superseded_note', @note::text) END,
    superseded_by = r.by,
    superseded_at = coalesce(r.at, b.valid_from, b.occurred_start, @now::timestamptz)
FROM jsonb_to_recordset(@rows::jsonb) AS r(old bigint, by bigint, at timestamptz)
JOIN recall.memories b ON b.id = r.by AND b.scopes = @scopes::text[]
WHERE m.id = r.old AND m.scopes = @scopes::text[]
