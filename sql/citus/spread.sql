-- A recall by a caller whose scope sets' shards are on several workers (statement/spread.go).
-- Citus will not run the statement across shards as one query, so the engine runs it in
-- rounds on each worker, over that worker's sets, and merges in Go what the lanes couple:
--   gather: each set's statistics, its rows of the query's terms, the entities and titles
--           the query names (the probes);
--   lanes:  every lane but graph, with the sums of the statistics and the merged probes
--           bound, each lane's rows with what it takes to rank them again over all sets;
--   walk:   the graph walk from the merged seeds, its entities and their relations;
--   rank:   PageRank over the merged walk, on the coordinator (no table read);
--   hits, output: the rows of the k fused candidates and their neighbours.
-- Go text/template, executed by name: each block is a WITH query that takes the place of the
-- statement's own (bound to what the earlier rounds merged), or a round's SELECT.

{{define "visible_stats_from"}}unnest(@b_docs::bigint[], @b_total_len::bigint[], @b_cdocs::bigint[], @b_ctotal_len::bigint[], @b_ctotal_nlen::bigint[]) AS visible_sets(docs, total_len, cdocs, ctotal_len, ctotal_nlen){{end}}

{{define "terms_from"}}unnest(@b_terms::text[], @b_df::bigint[], @b_cdf::bigint[]) AS t(term, df, cdf){{end}}

{{define "mention_entities"}}mention_entities AS MATERIALIZED (
  SELECT b.id, b.sim FROM unnest(@b_entities::bigint[], @b_entity_sims::float8[]) AS b(id, sim)
){{end}}

{{define "title_sources"}}title_sources AS MATERIALIZED (
  SELECT b.id, b.sim, b.direct
  FROM unnest(@b_titles::bigint[], @b_title_sims::float8[], @b_title_direct::bool[]) AS b(id, sim, direct)
){{end}}

{{define "graph_seeds"}}graph_seeds AS MATERIALIZED (
  SELECT unnest(@b_seeds::bigint[]) AS id
){{end}}

{{define "graph_nodes"}}graph_nodes AS MATERIALIZED (
  SELECT g.ord::int AS ord, g.id, g.seed, g.depth
  FROM unnest(@b_node_ids::bigint[], @b_node_seeds::bool[], @b_node_depths::int[]) WITH ORDINALITY AS g(id, seed, depth, ord)
){{end}}

{{define "graph_pairs"}}graph_pairs AS MATERIALIZED (
  SELECT p.s, p.d, p.w FROM unnest(@b_pair_s::int[], @b_pair_d::int[], @b_pair_w::float8[]) AS p(s, d, w)
){{end}}

{{define "graph_top"}}graph_top AS MATERIALIZED (
  SELECT b.id, b.mass FROM unnest(@b_top_entities::bigint[], @b_top_masses::float8[]) AS b(id, mass)
){{end}}

{{define "output_top"}}output_top AS MATERIALIZED (
  SELECT t.id, NULL::bigint[] AS lane_ranks, NULL::float8[] AS lane_scores, false AS direct, 0::float8 AS rrf,
         t.fused, NULL::timestamptz AS last_accessed, 0::bigint AS access_count, t.passage
  FROM unnest(@b_top::bigint[], @b_top_fused::float8[], @b_top_passage::int[]) AS t(id, fused, passage)
){{end}}

-- gather: one row per set ('set'), per set and query term ('term'), per entity ('entity')
-- and per source ('title') the query names.
{{define "gather"}}
SELECT 'set' AS kind, NULL::bigint AS id, NULL::text AS term, s.docs, s.total_len, s.cdocs, s.ctotal_len, s.ctotal_nlen,
       NULL::float8 AS sim, NULL::bool AS direct
FROM visible_sets s
{{- if .Lexical}}
UNION ALL
SELECT 'term', NULL, t.term, t.df, t.cdf, NULL, NULL, NULL, NULL, NULL
FROM {{read "bm25_terms"}} t
WHERE t.term IN (SELECT q.term FROM bm25_terms_q q)
{{- end}}
{{- if .Entities}}
UNION ALL
SELECT 'entity', e.id, NULL, NULL, NULL, NULL, NULL, NULL, e.sim, NULL FROM mention_entities e
{{- end}}
{{- if .Title}}
UNION ALL
SELECT 'title', t.id, NULL, NULL, NULL, NULL, NULL, NULL, t.sim, t.direct FROM title_sources t
{{- end}}
{{end}}

-- lanes: each lane's rows on this worker, with what ranks them over every worker: bm25's
-- best spread_bm25 scores (ref: the passage that scored) and every vector hit (with the entities each mentions, for the
-- graph's seeds and pool), every temporal candidate with its gap and distance (tail: one of
-- the latest before the middle), the context lane's best and the answers its questions hand
-- their score to; then every one's access terms. .Plain are the plan's other lanes (mention,
-- title, and any lane the registry adds) whose rows merge by score alone (statement/lanes.go,
-- merge: top or mid-ranked): the lane's own rows, and for mid-ranked lanes their tie counts
-- (on the first row of each score this text returns, 0 on the others, so the counts of every
-- text add up) and, for a lane that can name a source (.Direct), whether the row is direct.
{{define "lanes"}}
spread_rows AS MATERIALIZED (
  SELECT NULL::text AS kind, NULL::bigint AS id, NULL::bigint AS ref, NULL::float8 AS score, NULL::float8 AS score2,
         NULL::bigint AS ties, NULL::bool AS flag, NULL::timestamptz AS at, NULL::bigint[] AS ents
  WHERE false
{{- if .BM25}}
  UNION ALL
  SELECT 'bm25', b.id, b.passage, b.score, NULL, NULL, NULL, NULL,
         {{if .Graph}}ARRAY(SELECT mn.entity_id FROM {{read "mentions"}} mn WHERE mn.memory_id = b.id AND NOT mn.speaker ORDER BY 1){{else}}NULL{{end}}
  FROM (SELECT c.id, c.score, c.passage FROM bm25_scored c ORDER BY c.score DESC, c.id LIMIT @spread_bm25::int) b
{{- end}}
{{- if .Vector}}
  UNION ALL
  SELECT 'vector', v.id, NULL, 1 - v.distance, v.distance, NULL, NULL, NULL,
         {{if .Graph}}ARRAY(SELECT mn.entity_id FROM {{read "mentions"}} mn WHERE mn.memory_id = v.id AND NOT mn.speaker ORDER BY 1){{else}}NULL{{end}}
  FROM vector_hits v
{{- end}}
{{- range .Plain}}
  UNION ALL
  SELECT '{{.Name}}', l.id, NULL, l.score, NULL,
         {{if .Mid}}CASE WHEN l.id = min(l.id) OVER (PARTITION BY l.score) THEN l.ties ELSE 0 END{{else}}NULL{{end}}, {{if .Direct}}l.direct{{else}}NULL{{end}}, NULL, NULL
  FROM {{.Name}}_lane l
{{- end}}
{{- if .Temporal}}
  UNION ALL
  SELECT 'temporal', g.id, NULL, g.gap, g.mid, NULL, g.tail, g.occurred_start, NULL FROM temporal_gaps g
{{- end}}
{{- if .Context}}
  UNION ALL
  SELECT 'context', c.id, NULL, c.score, NULL, NULL, NULL, NULL, NULL FROM context_top c
  UNION ALL
  SELECT 'handoff', h.id, h.question, h.score, s.score, NULL, NULL, NULL, NULL
  FROM context_handoff h
  LEFT JOIN context_scored s ON s.id = h.id
{{- end}}
),
fused_rrf AS (
  SELECT DISTINCT r.id, 0::float8 AS rrf FROM spread_rows r
){{end}}

{{define "lanes_select"}}
SELECT r.kind, r.id, r.ref, r.score, r.score2, r.ties, r.flag, r.at, r.ents,
       NULL::float8 AS recency, NULL::float8 AS frequency, NULL::bigint AS access_count
FROM spread_rows r
UNION ALL
SELECT 'access', a.id, NULL, NULL, NULL, NULL, NULL, a.last_accessed, NULL, a.recency, a.frequency, a.access_count
FROM output_access a
{{end}}

-- walk: the entities the walk keeps on this worker ('node', with their depth) and the
-- relations between them ('pair').
{{define "walk"}}
SELECT 'node' AS kind, n.id, NULL::bigint AS dst, n.depth, NULL::float8 AS w FROM graph_nodes n
UNION ALL
SELECT 'pair', gi.ids[p.s], gi.ids[p.d], NULL, p.w FROM graph_pairs p CROSS JOIN graph_index gi
{{end}}

{{define "rank"}}
SELECT t.id, t.mass FROM graph_top t
{{end}}

-- hits: the fused candidates on this worker that may bring neighbours (output.sql's
-- output_hits, uncut: the engine keeps the first context_hits over every worker).
{{define "hits"}}
SELECT h.id FROM output_hits h
{{end}}

-- The caller's title keys on this worker (title_known.sql set them), and the keys of every
-- worker set for the probes.
{{define "title_keys"}}
SELECT coalesce(nullif(current_setting('recall.title_known', true), '')::text[], '{}')
{{end}}

{{define "title_keys_set"}}
SELECT set_config('recall.title_known', @keys::text[]::text, true)
{{end}}
