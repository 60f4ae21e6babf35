-- fusion: Reciprocal Rank Fusion of the plan's lanes. A Go text/template over the plan
-- (statement/build.go renders it once per shape): .Plan are the lanes compiled in, .All every
-- lane in output order, each with .Name, .Index (its column in lane_ranks) and .In (in the
-- plan); a lane with .Direct returns a direct column (the query names the memory's source),
-- one with .Passage a passage column (the passage of the memory that scored: bm25).
-- candidates: every lane's rows, one per (lane, memory). fused_rrf: one row per memory with
-- every lane's rank and score in lane order (NULL where the lane did not return it or is not
-- in the plan, so every plan scans the same way; a trace reads this same statement), and
--   rrf = sum over the plan's lanes of weight / (rrf_k + rank),
-- added in lane order. sql/lanes/output.sql adds the recency and frequency terms. The pivot
-- is one aggregate over the union: LEFT JOINs of the lanes to their union were nested loops
-- over CTE scans.
candidates AS (
{{- range $i, $l := .Plan}}{{if $i}}
  UNION ALL{{end}}
  SELECT {{$l.Index}} AS lane, id, rank, score::float8 AS score, {{if $l.Direct}}direct{{else}}false AS direct{{end}},
         {{if $l.Passage}}passage{{else}}NULL::int AS passage{{end}} FROM {{$l.Name}}_lane
{{- end}}
),
fused_rrf AS (
  SELECT x.id, x.direct,
    ARRAY[{{range $i, $l := .All}}{{if $i}}, {{end}}{{if $l.In}}x.{{$l.Name}}_rank{{else}}NULL{{end}}{{end}}]::bigint[] AS lane_ranks,
    ARRAY[{{range $i, $l := .All}}{{if $i}}, {{end}}{{if $l.In}}x.{{$l.Name}}_score{{else}}NULL{{end}}{{end}}]::float8[] AS lane_scores,
    {{range $i, $l := .Plan}}{{if $i}}
      + {{end}}coalesce(@w_{{$l.Name}}::float8 / (@rrf_k::float8 + x.{{$l.Name}}_rank), 0){{end}} AS rrf,
    x.passage
  FROM (
    SELECT id, max(passage) AS passage
{{- range .Plan}},
      max(rank) FILTER (WHERE lane = {{.Index}}) AS {{.Name}}_rank, max(score) FILTER (WHERE lane = {{.Index}}) AS {{.Name}}_score
{{- end}},
      bool_or(direct) AS direct
    FROM candidates
    GROUP BY id
  ) x
)
