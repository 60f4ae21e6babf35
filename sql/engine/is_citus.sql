-- Whether the server runs Citus, asked once per connection by internal/scope.Apply: there the
-- caller's scopes must be applied by scope_apply_citus.sql to reach the workers.
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')
