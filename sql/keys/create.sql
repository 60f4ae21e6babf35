-- Store a new API key (keys.Create, as the owner): its id, the SHA-256 of its secret (the
-- secret itself is never stored), the user it stands for, its scopes and whether it is an
-- admin key.
INSERT INTO recall.api_keys (id, secret_hash, user_id, label, read_scopes, write_scopes, admin)
VALUES (@id, @secret_hash, @user_id, @label, @read_scopes, @write_scopes, @admin)
RETURNING created_at
