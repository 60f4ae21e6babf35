-- A transaction's caller on a Citus coordinator: the same binds as scope_apply.sql, applied
-- by SET LOCAL so the workers see them too (sql/engine/apply_scopes.sql says why).
SELECT recall.apply_scopes($1::text[], $2::text[], $3::text[], $4::text[])
