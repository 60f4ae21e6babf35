-- Revoke an API key by id (keys.Revoke, as the owner); revoking it again keeps the first time.
UPDATE recall.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = @id
