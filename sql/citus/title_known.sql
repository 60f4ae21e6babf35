-- statement.RunOnShards, for a recall of several scope sets on one worker: sets
-- recall.title_known (a text[] literal, for this transaction) to the keys of the titles the
-- question names exactly in any of the sets. {{probes}} is each set's title probe with no
-- fuzzy words (sql/citus/shard_probe.sql, its exact branch alone), {{sources}} the sets'
-- sources shards (sql/citus/shard_read.sql). Every set's title probe then leaves out the
-- fuzzy search of an n-gram inside one of those keys, as one server's probe over all the
-- sets would (sql/lanes/title_probe.sql).
SELECT set_config('recall.title_known', coalesce(array_agg(DISTINCT recall.title_key(s.title)), '{}')::text, true)
FROM ({{probes}}) x
JOIN ({{sources}}) s ON s.id = x.id
WHERE x.direct
