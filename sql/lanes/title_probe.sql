-- recall.probe_titles: the sources a query names (sql/lanes/title.sql), with the caller's
-- visibility, as index probes; it runs as the owner and applies the read rule itself, as
-- recall.probe_entities does (sql/lanes/entity_probe.sql says why).
--
-- A query names a source when a word n-gram of its title key (recall.title_key) of up to
-- exact_words words is the title's key (a direct source, similarity 1), or, fuzzily, when an
-- n-gram of up to fuzzy_words words has pg_trgm similarity >= floor with the lowered title.
-- Titles are long, so a short n-gram's trigrams are found in many of them; similarity >= t
-- implies that each side has at least t times the other's distinct trigrams, so the title
-- trigram index is split into parts by the title's trigram count (generated below from one
-- list of bounds: sql/functions.go), and an n-gram probes only the parts its bound reaches.
-- The query's words are computed once (a materialized CTE): pulled up into the n-gram loop,
-- title_key's regexp ran for every n-gram.
-- Most of a question's n-grams cannot be a title, and each fuzzy probe costs a GIN scan
-- (about a millisecond at a million memories, found or not), so the fuzzy branch skips the
-- weak ones: an n-gram that ends with an English stop word ("... say about"), that starts
-- with one other than an article ("what did ...", "about the ..."; "the", "a", "an" start
-- titles), or whose words all have at most two letters. The n-gram without the stop word is
-- probed in its place. Stop words are PostgreSQL's English ones, those to_tsvector drops,
-- as for BM25.
-- Nor does it probe an n-gram inside (or equal to) one that is a visible title's key: the
-- question names that title by those words already (a near-copy of the title, "... river"
-- against "... rivers", is not looked for beside it). The exact branch finds every title
-- key among the n-grams in one scan of the token index, all n-grams' tokens at once (one
-- scan per n-gram cost 55 bitmap scans for a ten-word question).
-- Every index the probe reads carries the scope set, as recall.probe_entities' do
-- (sql/lanes/entity_probe.sql says why): a second GIN column of the trigram parts, and scope
-- tokens of the title key for the exact branch.
-- The fuzzy branch has two ways to find the titles; both return the same rows. The trigram
-- parts' posting lists hold the titles of every scope: the GIN scan steps through them to
-- intersect them with the caller's scope entry, so its work grows with titles the caller
-- cannot see (at a million memories, 8.8-10.6 ms for a caller of 300 titles). A caller who sees
-- at most 2,000 titles or 2% of all sources (pg_class.reltuples), whichever is more, as
-- recall.probe_entities chooses (entity_probe.sql says why) (counted, up to that bound, by the empty-trigram rows of
-- recall.title_trigrams under its read scopes; a title in several of them counts once per
-- scope) reads recall.title_trigrams instead: the postings of the n-grams' trigrams under
-- the caller's read scopes, read once for all n-grams, and per n-gram only the titles found
-- in two of its rarest trigrams (the cand CTE gives the bound) are compared (a title under
-- two read scopes counts twice: that lets more titles through to the exact comparison,
-- never fewer). Its work follows the caller's titles. Counting every shared trigram per
-- title and n-gram, as this way did first, cost 10 ms for a caller of 500 titles where
-- this costs 6 (BENCHMARKS.md). A caller who sees at least half of the table's sources
-- keeps the GIN scan too (a database of one user): its work is then at most twice what the
-- caller's own titles cost, and less than the postings' (25 titles of 26: 1.4 ms against 2.4;
-- 495 of 500: 1.9 against 3.3-4.9); the count, which holds a title once per read scope, is
-- divided by the read scopes for this test. For more titles the GIN scan is the faster of the two (at
-- 50,000 titles the counted postings took 264 ms for three n-grams). The setting
-- recall.title_probe ('scope' or 'index') forces one way, for tests and measurements.
{{- range .TitleBands}}
CREATE INDEX IF NOT EXISTS sources_trgm_scopes_{{.Name}}_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes)
  WITH (fastupdate = off) WHERE cardinality(show_trgm(lower(title))) {{.Pred}};
{{- end}}
{{template "drop_stale_bands" (bandIndexes "sources_trgm_scopes" .TitleBands)}}
{{template "drop_stale_bands" (gone "sources_title_trgm")}}
DROP INDEX IF EXISTS recall.sources_title_key_idx;
CREATE INDEX IF NOT EXISTS sources_title_tokens_idx ON recall.sources
  USING gin (recall.scope_tokens(scopes, ARRAY[recall.title_key(title)])) WITH (fastupdate = off);

{{define "probe_titles_by_scope"}}{{template "probe_by_scope" (byScope "title_trigrams" "sources" .Routed)}}{{end}}{{define "probe_titles_query"}}  WITH words AS MATERIALIZED (
    SELECT k.a, ARRAY(SELECT to_tsvector('english', x) = ''::tsvector FROM unnest(k.a) WITH ORDINALITY AS u(x, o) ORDER BY o) AS stop
    FROM (SELECT string_to_array(recall.title_key(query), ' ') AS a) k
  ),
  -- Every n-gram of up to exact_words words, by position.
  spans AS MATERIALIZED (
    SELECT i, n, array_to_string(w.a[i:i + n - 1], ' ') AS g,
           w.stop[i + n - 1] OR (w.stop[i] AND w.a[i] NOT IN ('the', 'a', 'an'))
             OR NOT EXISTS (SELECT 1 FROM unnest(w.a[i:i + n - 1]) AS x WHERE length(x) > 2) AS weak
    FROM words w
    CROSS JOIN generate_series(1, cardinality(w.a)) AS i
    CROSS JOIN generate_series(1, exact_words) AS n
    WHERE i + n - 1 <= cardinality(w.a)
  ),
  -- The titles whose key is one of the n-grams, in one index scan: the scope tokens of every
  -- n-gram of at least three characters under every read scope.
  exact AS MATERIALIZED (
    SELECT s.id, recall.title_key(s.title) AS k
    FROM recall.sources s
    WHERE {{if .Routed}}s.scopes = route AND {{end}}recall.scope_tokens(s.scopes, ARRAY[recall.title_key(s.title)])
          && recall.scope_tokens(recall.read_scopes(), ARRAY(SELECT DISTINCT sp.g FROM spans sp WHERE length(sp.g) >= 3))
  ),
  -- The fuzzy branch's n-grams, with their trigrams: not weak, and not inside (or equal to)
  -- an n-gram that is a title's key, whose words already name that title.
  grams AS MATERIALIZED (
    SELECT DISTINCT sp.g, show_trgm(sp.g) AS trg
    FROM spans sp
    WHERE sp.n <= fuzzy_words AND NOT sp.weak
      AND NOT EXISTS (SELECT 1 FROM spans e JOIN exact h ON h.k = e.g
                      WHERE e.i <= sp.i AND sp.i + sp.n <= e.i + e.n)
{{- if .Shard}}
      AND NOT EXISTS (SELECT 1 FROM spans e WHERE e.g = ANY (known) AND e.i <= sp.i AND sp.i + sp.n <= e.i + e.n)
{{- end}}
  ),
{{template "trigram_candidates" (postings "title_trigrams" "source_id" .Routed)}}
  SELECT x.id, max(x.sim), bool_or(x.direct)
  FROM (
    SELECT h.id, 1.0::float8 AS sim, true AS direct FROM exact h
    UNION ALL
    SELECT p.id, p.sim, false
    FROM grams g
    CROSS JOIN LATERAL (SELECT cardinality(g.trg) AS n) q
    CROSS JOIN LATERAL (
{{- range $i, $b := .TitleBands}}{{if $i}}
      UNION ALL{{end}}
      SELECT s.id, similarity(lower(s.title), g.g)::float8 AS sim
      FROM recall.sources s
      WHERE {{$b.Reach}}
        AND cardinality(show_trgm(lower(s.title))) {{$b.Pred}}
        AND lower(s.title) % g.g AND {{if $.Routed}}s.scopes = route AND {{end}}s.scopes && recall.read_scopes()
{{- end}}
    ) p
    WHERE NOT by_scope AND p.sim >= floor
    UNION ALL
    SELECT c.id, m.sim, false
    FROM cand c
    -- Each title by its id (OFFSET 0 keeps the similarity from being planned as a trigram index scan).
    CROSS JOIN LATERAL (SELECT similarity(lower(s.title), c.g)::float8 AS sim FROM recall.sources s WHERE s.id = c.id{{if .Routed}} AND s.scopes = route{{end}} OFFSET 0) m
    WHERE by_scope AND m.sim >= floor
  ) x
  GROUP BY x.id{{end}}{{define "probe_titles"}}CREATE OR REPLACE FUNCTION recall.probe_titles{{if .Routed}}_routed(route text[], {{else}}({{end}}query text, exact_words int, fuzzy_words int, floor float8)
RETURNS TABLE (id bigint, sim float8, direct boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off
{{- if .Routed}} SET plan_cache_mode = force_custom_plan
{{- else}} SET plan_cache_mode = force_generic_plan{{end}}
ROWS 8
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
  -- A caller who sees no titled source (every source has the empty trigram's row; a title
  -- has others) has no title to find: most memories of chats and notes have none.
  IF NOT EXISTS (SELECT 1 FROM recall.title_trigrams t
                 WHERE {{if .Routed}}t.scopes = route AND {{end}}t.scope = ANY (recall.read_scopes()) AND t.trigram > '') THEN
{{- if .Routed}}
    PERFORM set_config('citus.allow_nested_distributed_execution', coalesce(nested, 'off'), true);
{{- end}}
    RETURN;
  END IF;
  by_scope := CASE current_setting('recall.title_probe', true)
    WHEN 'scope' THEN true
    WHEN 'index' THEN false
    ELSE ({{template "probe_titles_by_scope" .}})
  END;
  RETURN QUERY
{{template "probe_titles_query" .}};
{{- if .Routed}}
  PERFORM set_config('citus.allow_nested_distributed_execution', coalesce(nested, 'off'), true);
{{- end}}
END
$$;
{{if .Routed}}{{template "trgm_search_path" "recall.probe_titles_routed(text[], text, int, int, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_titles_routed(text[], text, int, int, float8) TO recall_runtime;
{{- else}}{{template "trgm_search_path" "recall.probe_titles(text, int, int, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_titles(text, int, int, float8) TO recall_runtime;
{{- end}}
{{end}}
{{- template "probe_titles" .}}

-- recall.probe_titles_routed: the same probe for the routed statement on a Citus cluster,
-- bound to the caller's one scope set as recall.probe_entities_routed is (entity_probe.sql
-- says why).
{{template "probe_titles" (routed .)}}

-- recall.probe_titles_shard: the same probe for a statement read on the worker that holds the
-- caller's scope set's shards (docs/SCALING.md): the routed probe's queries, bound to route,
-- on that set's shard tables themselves (recall.local_shard names them), so no Citus planning
-- runs inside; they are run by EXECUTE, the shard's names being known only at the call, and
-- so planned at every call. It refuses a set whose shards are elsewhere. A caller of several
-- sets probes each (statement.RunOnShards); an n-gram one of them has as a title's key is not
-- probed fuzzily in the others either, as one server's probe over all of them would not: the
-- keys found in all of them are set first, in recall.title_known (a text[] literal; unset,
-- none).
{{define "probe_titles_shard"}}CREATE OR REPLACE FUNCTION recall.probe_titles_shard(route text[], query text, exact_words int, fuzzy_words int, floor float8)
RETURNS TABLE (id bigint, sim float8, direct boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET enable_seqscan = off
ROWS 8
AS $$
DECLARE
  by_scope boolean;
  sources text := recall.local_shard('recall.sources', route);
  title_trigrams text := recall.local_shard('recall.title_trigrams', route);
  known text[] := coalesce(nullif(current_setting('recall.title_known', true), '')::text[], '{}');
BEGIN
  IF sources IS NULL OR title_trigrams IS NULL THEN
    RAISE EXCEPTION 'recall.probe_titles_shard: the shards of scope set % are not on this node', route
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  by_scope := CASE current_setting('recall.title_probe', true) WHEN 'scope' THEN true WHEN 'index' THEN false END;
  IF by_scope IS NULL THEN
    EXECUTE replace({{dynamic "probe_titles_by_scope" . "route"}}, '@@title_trigrams@@', title_trigrams)
      INTO by_scope USING route;
  END IF;
  RETURN QUERY EXECUTE replace(replace({{dynamic "probe_titles_query" . "route query exact_words fuzzy_words floor by_scope known"}},
      '@@sources@@', sources), '@@title_trigrams@@', title_trigrams)
    USING route, query, exact_words, fuzzy_words, floor, by_scope, known;
END
$$;
{{template "trgm_search_path" "recall.probe_titles_shard(text[], text, int, int, float8)"}}
GRANT EXECUTE ON FUNCTION recall.probe_titles_shard(text[], text, int, int, float8) TO recall_runtime;
{{end}}
{{- template "probe_titles_shard" (shard .)}}
