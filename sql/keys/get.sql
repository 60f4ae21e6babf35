-- A key's hash, user and scopes by id, while it is not revoked (keys.Lookup, as any role,
-- through recall.api_key: sql/keys/lookup.sql).
SELECT secret_hash, user_id, label, read_scopes, write_scopes FROM recall.api_key(@id)
