-- The routed form of the statement's reads (sql/lanes/reads.sql lists the markers;
-- statement/routed.go says why each is written so): every distributed table read bound to
-- the caller's one scope set (@route), so Citus sends the statement whole to that set's
-- shard, and nothing a shard cannot run inside it.

-- table: the set's rows of a distributed table (.Name), which PostgreSQL pulls up (the same
-- plan as a condition on the table) and Citus prunes to the set's shard; the read policies
-- still apply under it.
{{define "table"}}(SELECT * FROM recall.{{.Name}} WHERE scopes = @route::text[]){{end}}

-- visible_corpus: the set's statistics from recall.bm25_corpus itself (the function reads a
-- distributed table, which a shard's query cannot).
{{define "visible_corpus"}}{{read "bm25_corpus"}}{{end}}

-- memories_reltuples: Citus refuses a catalog table in a distributed query, and a shard's size
-- is not the coordinator's to read, so the caller's memories are compared with themselves.
{{define "memories_reltuples"}}(SELECT 0::float4 AS reltuples){{end}}

-- vector_nearest: recall.vector_nearest's exact search as a query of the statement, under row
-- security (.Dim the dimension).
{{define "vector_nearest"}}(SELECT m.id, m.embedding::vector({{.Dim}}) <=> @qvec::vector({{.Dim}}) AS distance FROM {{read "memories"}} m WHERE vector_dims(m.embedding) = {{.Dim}} ORDER BY 2, m.id LIMIT @vector_k::int){{end}}

-- probe: the probe's routed form, bound to the same set (sql/lanes/entity_probe.sql says how
-- it runs inside the statement on the shard).
{{define "probe"}}recall.probe_{{.Kind}}_routed(@route::text[], {{.Args}}){{end}}
