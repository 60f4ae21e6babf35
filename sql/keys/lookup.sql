-- The one way the runtime role reads an API key: by its id, and only while it is not
-- revoked. It returns the secret's hash for the caller to compare in constant time, and the
-- key's user and scopes. Revocation takes effect on the next lookup (nothing is cached).
CREATE OR REPLACE FUNCTION recall.api_key(key_id text)
RETURNS TABLE (secret_hash bytea, user_id text, label text, read_scopes text[], write_scopes text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT k.secret_hash, k.user_id, k.label, k.read_scopes, k.write_scopes
  FROM recall.api_keys k
  WHERE k.id = key_id AND k.revoked_at IS NULL
$$;
REVOKE ALL ON FUNCTION recall.api_key(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.api_key(text) TO recall_runtime;

-- Whether a key (by id, not revoked) is an admin key (migration 00016): asked only by the
-- routes that need one, after the key has authenticated.
CREATE OR REPLACE FUNCTION recall.api_key_admin(key_id text)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce((SELECT k.admin FROM recall.api_keys k WHERE k.id = key_id AND k.revoked_at IS NULL), false)
$$;
REVOKE ALL ON FUNCTION recall.api_key_admin(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.api_key_admin(text) TO recall_runtime;
