-- recall.apply_scopes: a transaction's caller (scopes and session settings) by SET LOCAL, for
-- a Citus coordinator (internal/scope.Apply calls it there). Citus passes a SET LOCAL on to
-- the workers the transaction uses when citus.propagate_set_commands is 'local' (set here
-- first, for this transaction only: set for a role, the workers passed it to each other); a
-- set_config(..., true), what sql/engine/scope_apply.sql does on one server, stays on the
-- coordinator, and the workers' policies would see no scopes (nothing visible: closed, not
-- open). Setting names are checked to be plain (optionally dotted) identifiers; values are
-- quoted literals.
CREATE OR REPLACE FUNCTION recall.apply_scopes(read text[], write text[], names text[], vals text[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL citus.propagate_set_commands = 'local';
  EXECUTE pg_catalog.format('SET LOCAL recall.read_scopes = %L', read::text);
  EXECUTE pg_catalog.format('SET LOCAL recall.write_scopes = %L', write::text);
  FOR i IN 1 .. coalesce(pg_catalog.cardinality(names), 0) LOOP
    IF names[i] IS NULL OR names[i] !~ '^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$' THEN
      RAISE EXCEPTION 'recall.apply_scopes: setting name % is not a plain name', pg_catalog.quote_nullable(names[i]);
    END IF;
    EXECUTE pg_catalog.format('SET LOCAL %s = %L', names[i], vals[i]);
  END LOOP;
END
$$;
GRANT EXECUTE ON FUNCTION recall.apply_scopes(text[], text[], text[], text[]) TO recall_runtime;
