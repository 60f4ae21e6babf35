-- Every API key, newest first, revoked ones too (keys.List, as the owner). No secret hash.
SELECT id, user_id, label, read_scopes, write_scopes, created_at, revoked_at, admin
FROM recall.api_keys
ORDER BY created_at DESC, id
