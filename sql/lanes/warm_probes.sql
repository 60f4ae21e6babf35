-- Warm-up (statement.Warm): the mention and title probes, called as a recall's lanes call
-- them (sql/lanes/mention_fuzzy.sql, title.sql), so that a new session plans and caches
-- their PL/pgSQL bodies before its first recall. A caller who sees nothing leaves the lanes'
-- probes unread inside the statement, so they are run here directly, still as that caller.
-- The probes' signatures are in sql/lanes/entity_probe.sql and title_probe.sql; a test runs
-- this file on a migrated database, so a changed signature fails it.
SELECT (SELECT count(*) FROM recall.probe_entities(@qentities::text[], true, @mention_floor::float8)) AS entities,
       (SELECT count(*) FROM recall.probe_titles(@qlower::text, @title_exact_words::int, @title_fuzzy_words::int, @title_floor::float8)) AS titles
