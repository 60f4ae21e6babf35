-- Cluster roles for recall, created when missing (idempotent). Run as a superuser, or a role
-- with CREATEROLE, once per server; scripts/db.sh and the test harness do.
--   recall_owner    LOGIN: owns the schema and runs migrations (goose).
--   recall_runtime  LOGIN: what the engine runs as. NOSUPERUSER NOBYPASSRLS: row-level
--                   security always applies to it; it owns nothing and can become no one else.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_owner') THEN
    CREATE ROLE recall_owner LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_runtime') THEN
    CREATE ROLE recall_runtime LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
END
$$;
