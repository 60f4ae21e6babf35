-- A key's hash, user and scopes by id, while it is not revoked (keys.Lookup, as any role,
-- through recall.api_key: sql/keys/lookup.sql). Exactly one row whether or not the key
-- exists: an unknown id gets the zero hash of a key's length, empty fields and found false,
-- so that the caller scans, compares and answers the same way for both (a key id that
-- exists must not answer more slowly than one that does not).
SELECT coalesce(k.secret_hash, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) AS secret_hash,
       coalesce(k.user_id, '') AS user_id, coalesce(k.label, '') AS label,
       coalesce(k.read_scopes, '{}') AS read_scopes, coalesce(k.write_scopes, '{}') AS write_scopes,
       k.user_id IS NOT NULL AS found
FROM (SELECT 1) one
LEFT JOIN recall.api_key(@id) k ON true
