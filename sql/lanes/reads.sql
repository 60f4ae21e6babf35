-- The read forms (statement/forms.go). The statement's fragments (sql/lanes/) write what
-- depends on where the statement runs as a marker, and a read form writes each marker out:
-- this file is the form of one server; sql/citus/routed.sql routes the statement to the
-- shard of the caller's one scope set, sql/citus/shard.sql reads that shard on its worker,
-- and sql/citus/shard_read.sql and shard_probe.sql read the shards of several sets on one
-- worker. Each form is a Go text/template with the same blocks; no form rewrites the text
-- around a marker.
--
-- The markers, and the contract a fragment keeps when it writes one:
--   {{recall.<table>}}        a read of a table distributed by scope set (migrations.Distribute),
--                             in a FROM or JOIN, followed by its alias
--   {{visible_corpus}}        the per-set statistics the caller sees (recall.bm25_corpus'
--                             columns), followed by its alias
--   {{memories_reltuples}}    a one-row relation of the memories table's size (reltuples),
--                             followed by its alias
--   {{vector_nearest}}        the exact vector search's rows (id, distance) at the statement's
--                             dimension, followed by its alias
--   {{probe_<kind> <args>}}   the rows of recall.probe_<kind> (entities or titles) for the
--                             call's arguments <args> (no braces in them), followed by its alias
-- A form's block may itself write a table's marker ({{read "<table>"}}), which is then read
-- in that form. TestEveryFormRunsEveryLane and TestRoutedForms check the forms of every plan.
{{define "table"}}recall.{{.Name}}{{end}}
{{define "visible_corpus"}}recall.visible_corpus(){{end}}
{{define "memories_reltuples"}}(SELECT reltuples FROM pg_class WHERE oid = 'recall.memories'::regclass){{end}}
{{define "vector_nearest"}}recall.vector_nearest(@qvec::vector({{.Dim}}), @vector_k::int){{end}}
{{define "probe"}}recall.probe_{{.Kind}}({{.Args}}){{end}}
