-- The name trigram index of migration 00001 (lower(name) alone) goes: the name probes
-- (recall.probe_entities, sql/lanes/entity_probe.sql) and the writer's fuzzy resolution
-- (recall.resolve_fuzzy, sql/write/entity_resolve.sql) read the parts of the name trigram
-- index that carry each row's scope set (entities_trgm_scopes_*), and the plain resolution
-- on Citus tests % under row security, where it is no index condition. With the old index
-- there, the planner took it for the probe's index way on LoCoMo's database, which then
-- fetched the rows of every scope whose name shares the question's trigrams and dropped the
-- other scopes' after: work that grows with rows the caller cannot see (a question's probe
-- fetched 26 rows there, 16 of them other conversations'; 10 without this index).
-- TestTrigramIndexesCarryScopes keeps every trigram index scoped. A write maintains one
-- index fewer.

-- +goose Up
DROP INDEX IF EXISTS recall.entities_name_trgm_idx;

-- +goose Down
CREATE INDEX IF NOT EXISTS entities_name_trgm_idx ON recall.entities USING gin (lower(name) gin_trgm_ops) WITH (fastupdate = off);
