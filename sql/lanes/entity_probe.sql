-- recall.probe_entities: the entities a query's mentions name (sql/lanes/mention_fuzzy.sql and
-- mention_exact.sql), with the caller's visibility, as index probes.
--
-- Under row security a caller's own conditions may only be checked before the policy's when
-- they are leakproof, so only leakproof operators become index conditions; pg_trgm's %, &&
-- on arrays and lower() are not, and every match would scan the whole visible table. The probe
-- runs as the owner (SECURITY DEFINER), so its conditions are index conditions, and applies
-- the policies' read rule itself (scopes && read_scopes(): the caller's SET LOCAL scopes); the
-- lanes join what it returns back to the tables under row security.
--
-- A mention names an entity exactly when it is the entity's lowered name or alias (the keys
-- index), or fuzzily when its pg_trgm similarity with the lowered name is at least floor.
-- The fuzzy branch probes the strong mentions only, as recall.probe_titles probes n-grams: not
-- one that ends with an English stop word ("bob said to"), starts with one other than an
-- article ("about the acme", where "the acme" and "acme" are mentions too), or whose words
-- all have at most two letters. Most of a long question's n-grams are weak, and their
-- common trigrams ("  t", " to") have the longest postings: a 45-word LongMemEval question
-- spent 26 of its 55 ms in this probe. The exact branch still takes every mention.
-- Similarity >= floor bounds the name's distinct trigram count T by the mention's G:
-- floor G <= T <= G / floor, so the name trigram index is split into parts by T (partial
-- indexes, generated below from one list of bounds: sql/functions.go) and a mention probes
-- only the parts its bound reaches. The fuzzy probes use the index at
-- pg_trgm.similarity_threshold, which the engine sets with SET LOCAL to at most the floor;
-- the floor itself is checked here, as % checks the threshold: pg_trgm's real (float4)
-- similarity against the double floor, so a name at exactly 0.7 (0.69999999 as a real) is
-- below a floor of 0.7 either way. enable_seqscan is off inside: on small tables the
-- planner prefers scans that evaluate a trigram function on every row, whose cost it does not
-- count. PL/pgSQL with a generic plan cached per session (a SQL function is planned anew on
-- every call).
--
-- The work a probe does depends only on what the caller can see: every index it reads holds
-- the row's scope set (a second GIN column of the trigram parts, scope tokens for the exact
-- keys, below), so a row is matched on its name and on its scopes inside the index, and only
-- visible rows are fetched. A name common in scopes the caller cannot see costs it no row
-- visits, only the few bytes per row of the trigram index's compressed row lists
-- (TestProbeWorkIgnoresInvisibleRows, BENCHMARKS.md), and not even those for a caller who
-- sees at most 2,000 entities or 2% of all of them (pg_class.reltuples), whichever is more
-- (counted, up to that bound, by the empty-trigram rows of recall.entity_trigrams under its
-- read scopes). The GIN scan's work grows with every scope's rows and costs about a
-- millisecond per mention once the table is large: LongMemEval dev's 283,000 entities, a
-- caller of 2,147 and a question of 200 n-grams took 216 ms by the index and 20 ms by the
-- postings, one of 26 n-grams 26 and 3 ms (eval/results/probe-bound.md). Its fuzzy branch reads the postings of the
-- mentions' trigrams under its read scopes from recall.entity_trigrams, as
-- recall.probe_titles does for titles (both take the candidates from the trigram_candidates
-- template of sql/functions.tmpl, which says how they are bounded), so its work follows its
-- own entities. For more entities the GIN scan is the faster way, and so it is for a
-- caller who sees at least half of the table's entities (a database of one user): the GIN
-- scan's work is then at most twice what its own rows cost, and a third of the postings'
-- (a caller of 200 of a database's 400 names, 20 synthetic questions: 1.6 ms against 4.4).
-- The count holds a row once per read scope it is in, so it is divided by the read scopes:
-- a caller of several is never taken for one who sees more than it does. The setting
-- recall.entity_probe ('scope' or 'index') forces one, for tests and measurements.
{{- range .NameBands}}
CREATE INDEX IF NOT EXISTS entities_trgm_scopes_{{.Name}}_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(name))) {{.Pred}};
{{- end}}
{{template "drop_stale_bands" (bandIndexes "entities_trgm_scopes" .NameBands)}}
{{template "drop_stale_bands" (gone "entities_name_trgm")}}

-- The exact branch matches scope tokens, "scope key" for every scope and key of a row (a
-- scope name has no space), against the tokens of the caller's read scopes and the mentions:
-- a GIN entry then lists the rows of one scope only, and no plan can read the index by
-- scope alone (which a second scopes column would allow). recall.probe_titles uses it too.
CREATE OR REPLACE FUNCTION recall.scope_tokens(scopes text[], keys text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT ARRAY(SELECT s || ' ' || k FROM unnest(scopes) s CROSS JOIN unnest(keys) k) $$;
CREATE INDEX IF NOT EXISTS entities_key_tokens_idx ON recall.entities USING gin (recall.scope_tokens(scopes, keys))
  WITH (fastupdate = off);

{{define "probe_entities_by_scope"}}{{template "probe_by_scope" (byScope "entity_trigrams" "entities" .Routed)}}{{end}}{{define "probe_entities_query"}}  WITH stops AS MATERIALIZED (
    SELECT coalesce(array_agg(w.x), '{}') AS a
    FROM (SELECT DISTINCT x FROM unnest(mentions) AS m(mention) CROSS JOIN unnest(string_to_array(m.mention, ' ')) AS x WHERE fuzzy) w
    WHERE to_tsvector('english', w.x) = ''::tsvector
  ),
  strong AS MATERIALIZED (
    SELECT m.mention
    FROM unnest(mentions) AS m(mention)
    CROSS JOIN stops s
    CROSS JOIN LATERAL (SELECT string_to_array(m.mention, ' ') AS a) p
    WHERE fuzzy AND NOT (p.a[cardinality(p.a)] = ANY (s.a)
                         OR p.a[1] = ANY (s.a) AND p.a[1] NOT IN ('the', 'a', 'an')
                         OR NOT EXISTS (SELECT 1 FROM unnest(p.a) AS y WHERE length(y) > 2))
  ),
  grams AS MATERIALIZED (
    SELECT DISTINCT m.mention AS g, show_trgm(m.mention) AS trg
    FROM strong m
    WHERE by_scope
  ),
{{template "trigram_candidates" (postings "entity_trigrams" "entity_id" .Routed)}}
  SELECT x.id, max(x.sim)
  FROM (
    SELECT e.id, 1.0::float8 AS sim
    FROM recall.entities e
    WHERE {{if .Routed}}e.scopes = route AND {{end}}recall.scope_tokens(e.scopes, e.keys) && recall.scope_tokens(recall.read_scopes(), mentions)
    UNION ALL
    SELECT p.id, p.sim
    FROM strong AS g(mention)
    CROSS JOIN LATERAL (SELECT cardinality(show_trgm(g.mention)) AS n) q
    CROSS JOIN LATERAL (
{{- range $i, $b := .NameBands}}{{if $i}}
      UNION ALL{{end}}
      SELECT e.id, similarity(lower(e.name), g.mention)::float8 AS sim
      FROM recall.entities e
      WHERE {{$b.Reach}}
        AND cardinality(show_trgm(lower(e.name))) {{$b.Pred}}
        AND lower(e.name) % g.mention AND {{if $.Routed}}e.scopes = route AND {{end}}e.scopes && recall.read_scopes()
{{- end}}
    ) p
    WHERE fuzzy AND NOT by_scope AND p.sim >= floor
    UNION ALL
    SELECT c.id, m.sim
    FROM cand c
    -- Each name by its id (OFFSET 0 keeps the similarity from being planned as a trigram index scan).
    CROSS JOIN LATERAL (SELECT similarity(lower(e.name), c.g)::float8 AS sim FROM recall.entities e WHERE e.id = c.id{{if .Routed}} AND e.scopes = route{{end}} OFFSET 0) m
    WHERE m.sim >= floor
  ) x
  GROUP BY x.id{{end}}{{define "probe_entities"}}CREATE OR REPLACE FUNCTION recall.probe_entities{{if .Routed}}_routed(route text[], {{else}}({{end}}mentions text[], fuzzy boolean, floor float8)
RETURNS TABLE (id bigint, sim float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off
{{- if .Routed}} SET plan_cache_mode = force_custom_plan
{{- else}} SET plan_cache_mode = force_generic_plan{{end}}
ROWS 16
AS $$
DECLARE
  by_scope boolean;
{{- if .Routed}}
  nested text := current_setting('citus.allow_nested_distributed_execution', true);
{{- end}}
BEGIN
{{- if .Routed}}
  PERFORM set_config('citus.allow_nested_distributed_execution', 'on', true);
{{- end}}
  by_scope := fuzzy AND CASE current_setting('recall.entity_probe', true)
    WHEN 'scope' THEN true
    WHEN 'index' THEN false
    ELSE ({{template "probe_entities_by_scope" .}})
  END;
  RETURN QUERY
{{template "probe_entities_query" .}};
{{- if .Routed}}
  PERFORM set_config('citus.allow_nested_distributed_execution', coalesce(nested, 'off'), true);
{{- end}}
END
$$;
{{if .Routed}}{{template "trgm_search_path" "recall.probe_entities_routed(text[], text[], boolean, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_entities_routed(text[], text[], boolean, float8) TO recall_runtime;
{{- else}}{{template "trgm_search_path" "recall.probe_entities(text[], boolean, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_entities(text[], boolean, float8) TO recall_runtime;
{{- end}}
{{end}}
{{- template "probe_entities" .}}

-- recall.probe_entities_routed: the same probe for the routed statement on a Citus cluster
-- (statement/routed.go), every table it reads bound to route, the caller's one scope set, so
-- each of its queries goes to that set's shard, the one the statement runs on: there it is
-- a query on a local shard inside the statement's, which Citus allows only with
-- citus.allow_nested_distributed_execution: on while its query runs (RETURN QUERY runs it
-- whole), back to what it was after; its queries never leave the shard. (A SET clause
-- would be cleaner, but PostgreSQL lets only a superuser create a function that sets a
-- parameter of an extension not loaded, as on a single server.) Plans are made per call (force_custom_plan): Citus prunes a shard only
-- by a known value.
{{template "probe_entities" (routed .)}}

-- recall.probe_entities_shard: the same probe on the set's shard tables themselves, for a
-- statement read on their worker, as recall.probe_titles_shard is (title_probe.sql).
{{define "probe_entities_shard"}}CREATE OR REPLACE FUNCTION recall.probe_entities_shard(route text[], mentions text[], fuzzy boolean, floor float8)
RETURNS TABLE (id bigint, sim float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off
ROWS 16
AS $$
DECLARE
  by_scope boolean;
  entities text := recall.local_shard('recall.entities', route);
  entity_trigrams text := recall.local_shard('recall.entity_trigrams', route);
BEGIN
  IF entities IS NULL OR entity_trigrams IS NULL THEN
    RAISE EXCEPTION 'recall.probe_entities_shard: the shards of scope set % are not on this node', route
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  by_scope := CASE current_setting('recall.entity_probe', true) WHEN 'scope' THEN true WHEN 'index' THEN false END;
  IF by_scope IS NULL AND fuzzy THEN
    EXECUTE replace({{dynamic "probe_entities_by_scope" . "route"}}, '@@entity_trigrams@@', entity_trigrams)
      INTO by_scope USING route;
  END IF;
  by_scope := fuzzy AND coalesce(by_scope, false);
  RETURN QUERY EXECUTE replace(replace({{dynamic "probe_entities_query" . "route mentions fuzzy floor by_scope"}},
      '@@entities@@', entities), '@@entity_trigrams@@', entity_trigrams)
    USING route, mentions, fuzzy, floor, by_scope;
END
$$;
{{template "trgm_search_path" "recall.probe_entities_shard(text[], text[], boolean, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_entities_shard(text[], text[], boolean, float8) TO recall_runtime;
{{end}}
{{- template "probe_entities_shard" (shard .)}}
