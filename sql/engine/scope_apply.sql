-- A transaction's caller (internal/scope.Apply): the read and write scopes the policies read,
-- and the session settings given, all with SET LOCAL semantics (set_config's is_local), in
-- one round trip. $1 and $2 are the scopes, $3 and $4 the settings' names and values. On a
-- Citus coordinator these would not reach the workers: scope_apply_citus.sql does it there.
SELECT set_config('recall.read_scopes', $1::text[]::text, true),
       set_config('recall.write_scopes', $2::text[]::text, true),
       (SELECT count(set_config(n, v, true)) FROM unnest($3::text[], $4::text[]) AS s(n, v) OFFSET 0)
