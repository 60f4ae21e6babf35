-- The shard form of the statement's reads (statement/shard.go): the routed form
-- (sql/citus/routed.sql writes the other markers) with each distributed table read from the
-- caller's set's own shard table (.Shard, "recall.memories_102061") on the worker that holds
-- it, and the probes' shard forms, which read the shard tables themselves.
{{define "table"}}(SELECT * FROM {{.Shard}} WHERE scopes = @route::text[]){{end}}
{{define "probe"}}recall.probe_{{.Kind}}_shard(@route::text[], {{.Args}}){{end}}
