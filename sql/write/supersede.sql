-- Mark memories of the batch's scope set as superseded. @rows is a JSON array of {"old",
-- "by", "at"}: memory ids, and when the old one stopped holding (NULL: the superseding
-- memory's valid_from, else its occurred_start, else the write's time). @note, when not
-- empty, says who proposed it (recall consolidate), kept in the old memory's metadata as
-- superseded_note. Runs as the writer,
-- under row security; the key on (superseded_by, scopes) keeps both in the scope set.
UPDATE recall.memories m
SET metadata = CASE WHEN @note::text = '' THEN m.metadata ELSE m.metadata || jsonb_build_object('superseded_note', @note::text) END,
    superseded_by = r.by,
    superseded_at = coalesce(r.at, (SELECT coalesce(b.valid_from, b.occurred_start) FROM recall.memories b
                                     WHERE b.id = r.by AND b.scopes = @scopes::text[]), statement_timestamp())
FROM jsonb_to_recordset(@rows::jsonb) AS r(old bigint, by bigint, at timestamptz)
WHERE m.id = r.old AND m.scopes = @scopes::text[]
