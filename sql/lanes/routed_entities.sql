-- recall.probe_entities in a routed statement (statement/routed.go): on Citus the statement
-- runs on the shard of the caller's one scope set, where a function reading a distributed
-- table cannot run (its query would be a distributed query inside a shard's). The same rule
-- as the function (sql/lanes/entity_probe.sql), as a subquery under row security:
-- an entity whose lowered name or alias is a mention, with similarity 1, or, when fuzzy,
-- whose lowered name has pg_trgm similarity >= floor with a mention. It scans the caller's
-- entities, all on its shard (every table reference is bound to the scope set by the
-- routing): its work follows the caller's own rows. {{mentions}}, {{fuzzy}} and {{floor}}
-- are the function's arguments, binds of the statement.
(SELECT x.id, max(x.sim) AS sim
 FROM (
   SELECT e.id, 1.0::float8 AS sim
   FROM recall.entities e
   WHERE e.keys && {{mentions}}
   UNION ALL
   SELECT e.id, similarity(lower(e.name), g.mention)::float8
   FROM recall.entities e
   CROSS JOIN unnest({{mentions}}) AS g(mention)
   WHERE {{fuzzy}} AND similarity(lower(e.name), g.mention)::float8 >= {{floor}}
 ) x
 GROUP BY x.id)
