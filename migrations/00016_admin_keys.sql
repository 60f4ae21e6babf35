-- Admin keys (issue 53, item 4): a key made with recall keys create --admin may erase any
-- scope set over HTTP (DELETE /v1/scopes/{scope}); it reads and writes only its own scopes
-- as any key does. recall.api_key_admin (sql/keys/lookup.sql) says whether a key is one.

-- +goose Up
ALTER TABLE recall.api_keys ADD COLUMN IF NOT EXISTS admin boolean NOT NULL DEFAULT false;

-- +goose Down
DROP FUNCTION IF EXISTS recall.api_key_admin(text);
ALTER TABLE recall.api_keys DROP COLUMN IF EXISTS admin;
