-- The pieces of the routed form of the statement (statement/routed.go says what it changes
-- and why), a Go text/template executed by block name. Each replaces, in the single server's
-- text, what Citus cannot run on one shard.

-- memories_reltuples is the text sql/lanes/vector_hits.sql reads the memories table's size
-- by (pg_class: Citus refuses a catalog table in a distributed query); reltuples_routed
-- takes its place: the caller's memories are compared with themselves.
{{define "memories_reltuples"}}(SELECT reltuples FROM pg_class WHERE oid = 'recall.memories'::regclass){{end}}
{{define "reltuples_routed"}}(SELECT 0::float4 AS reltuples){{end}}

-- vector_nearest_routed: recall.vector_nearest's exact search as a query of the statement,
-- under row security (.Dim the dimension, .K the bind of the depth).
{{define "vector_nearest_routed"}}(SELECT m.id, m.embedding::vector({{.Dim}}) <=> @qvec::vector({{.Dim}}) AS distance FROM recall.memories m WHERE vector_dims(m.embedding) = {{.Dim}} ORDER BY 2, m.id LIMIT {{.K}}){{end}}

-- bound_table: a distributed table read as the caller's one scope set's rows, so that Citus
-- routes the statement to that set's shard (.Table the table's name).
{{define "bound_table"}}(SELECT * FROM recall.{{.Table}} WHERE scopes = @route::text[]){{end}}
