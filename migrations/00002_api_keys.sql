-- API keys: each key of the HTTP and MCP server (recall serve, recall mcp) is a user with
-- read and write scopes. A key is "rk_<id>_<secret>"; the table keeps the id and the SHA-256
-- of the secret, never the key. recall_runtime cannot read the table (no grant, and row
-- security with no policy): it looks one key up by id through recall.api_key
-- (sql/keys/lookup.sql), which returns nothing for a revoked key, and compares the hash
-- itself in constant time. The owner creates, lists and revokes keys (recall keys ...).

-- +goose Up
CREATE TABLE recall.api_keys (
  id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
  secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
  user_id text NOT NULL CHECK (length(user_id) BETWEEN 1 AND 256),
  label text NOT NULL DEFAULT '' CHECK (length(label) <= 256),
  read_scopes text[] NOT NULL CHECK (recall.is_scope_set(read_scopes)),
  write_scopes text[] NOT NULL DEFAULT '{}'
    CHECK ((cardinality(write_scopes) = 0 OR recall.is_scope_set(write_scopes)) AND write_scopes <@ read_scopes),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
ALTER TABLE recall.api_keys ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON recall.api_keys FROM PUBLIC;
COMMENT ON TABLE recall.api_keys IS 'Keys of the HTTP and MCP server: a hash of each, its user and scopes. Only the owner reads it.';

-- +goose Down
DROP TABLE recall.api_keys;
