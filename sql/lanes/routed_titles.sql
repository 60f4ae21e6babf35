-- recall.probe_titles in a routed statement (statement/routed.go; routed_entities.sql says
-- why): the rule of the function (sql/lanes/title_probe.sql), as a subquery under row
-- security over the caller's sources. A title whose key is a word n-gram of the query's key
-- of up to {{exact_words}} words (at least three characters) is direct, similarity 1; a
-- title whose lowered form has pg_trgm similarity >= {{floor}} with an n-gram of up to
-- {{fuzzy_words}} words is named approximately, the n-gram not weak (ending with a stop word,
-- starting with one other than an article, or of words of at most two letters) and not
-- inside an n-gram that is a title's key.
(WITH words AS MATERIALIZED (
   SELECT k.a, ARRAY(SELECT to_tsvector('english', x) = ''::tsvector FROM unnest(k.a) WITH ORDINALITY AS u(x, o) ORDER BY o) AS stop
   FROM (SELECT string_to_array(recall.title_key({{query}}), ' ') AS a) k
 ),
 spans AS MATERIALIZED (
   SELECT i, n, array_to_string(w.a[i:i + n - 1], ' ') AS g,
          w.stop[i + n - 1] OR (w.stop[i] AND w.a[i] NOT IN ('the', 'a', 'an'))
            OR NOT EXISTS (SELECT 1 FROM unnest(w.a[i:i + n - 1]) AS x WHERE length(x) > 2) AS weak
   FROM words w
   CROSS JOIN generate_series(1, cardinality(w.a)) AS i
   CROSS JOIN generate_series(1, {{exact_words}}) AS n
   WHERE i + n - 1 <= cardinality(w.a)
 ),
 exact AS MATERIALIZED (
   SELECT s.id, recall.title_key(s.title) AS k
   FROM recall.sources s
   WHERE recall.title_key(s.title) IN (SELECT sp.g FROM spans sp WHERE length(sp.g) >= 3)
 ),
 grams AS MATERIALIZED (
   SELECT DISTINCT sp.g
   FROM spans sp
   WHERE sp.n <= {{fuzzy_words}} AND NOT sp.weak
     AND NOT EXISTS (SELECT 1 FROM spans e JOIN exact h ON h.k = e.g
                     WHERE e.i <= sp.i AND sp.i + sp.n <= e.i + e.n)
 )
 SELECT x.id, max(x.sim) AS sim, bool_or(x.direct) AS direct
 FROM (
   SELECT h.id, 1.0::float8 AS sim, true AS direct FROM exact h
   UNION ALL
   SELECT s.id, similarity(lower(s.title), g.g)::float8, false
   FROM grams g
   CROSS JOIN recall.sources s
   WHERE similarity(lower(s.title), g.g)::float8 >= {{floor}}
 ) x
 GROUP BY x.id)
