-- The ground: extensions, the runtime role, the recall schema and the scope helpers.
--
-- Extensions: pg_trgm is a trusted extension; pgvector is not, so on a server where the
-- migrating role is not a superuser, a superuser must run
--   CREATE EXTENSION vector; CREATE EXTENSION pg_trgm;
-- in the database first (scripts/db.sh and the test harness do). The extensions belong to the
-- database administrator: the Down step leaves them in place.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
  v text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    BEGIN
      CREATE EXTENSION vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE EXCEPTION 'extension "vector" is missing and % may not create it', current_user
        USING HINT = 'as a superuser, run CREATE EXTENSION vector in this database, then migrate again';
    END;
  END IF;
  SELECT extversion INTO v FROM pg_extension WHERE extname = 'vector';
  IF string_to_array(v, '.')::int[] < '{0,8,0}'::int[] THEN
    RAISE EXCEPTION 'pgvector % is installed; recall needs >= 0.8.0 (iterative index scans)', v;
  END IF;
  CREATE EXTENSION IF NOT EXISTS pg_trgm;

  -- recall_runtime is the role the engine runs as. It is shared by every database on the
  -- server, so it is created only when missing and never dropped by a migration.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_runtime') THEN
    CREATE ROLE recall_runtime NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_runtime' AND (rolsuper OR rolbypassrls)) THEN
    RAISE EXCEPTION 'role recall_runtime is SUPERUSER or BYPASSRLS; row-level security would not apply to it';
  END IF;
END
$$;
-- +goose StatementEnd

CREATE SCHEMA recall;
GRANT USAGE ON SCHEMA recall TO recall_runtime;

-- The caller's scopes. The engine sets them with set_config(..., is_local => true) (SET LOCAL)
-- at the start of every transaction; outside such a transaction they are empty, so nothing is
-- visible and nothing is writable. A malformed value raises an error: policies fail closed.
-- +goose StatementBegin
CREATE FUNCTION recall.read_scopes() RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(current_setting('recall.read_scopes', true), ''), '{}')::text[]
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall.write_scopes() RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(current_setting('recall.write_scopes', true), ''), '{}')::text[]
$$;
-- +goose StatementEnd

-- A scope set is stored normalized: 1 to 64 names, each 1 to 128 characters of
-- [A-Za-z0-9_.:/@-], sorted, without duplicates. Normal form makes equal sets compare equal
-- (the unique keys below include the scope set).
-- +goose StatementBegin
CREATE FUNCTION recall.is_scope_set(s text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT cardinality(s) BETWEEN 1 AND 64
     AND array_ndims(s) = 1
     AND NOT EXISTS (SELECT 1 FROM unnest(s) AS x WHERE x IS NULL OR x !~ '^[A-Za-z0-9_.:/@-]{1,128}$')
     AND s = ARRAY(SELECT DISTINCT x COLLATE "C" FROM unnest(s) AS x ORDER BY 1)
$$;
-- +goose StatementEnd

-- +goose Down
DROP SCHEMA recall CASCADE;
