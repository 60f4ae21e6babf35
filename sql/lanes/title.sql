-- title: sources the raw query names, found by recall.probe_titles (title_probe.sql gives
-- the rule: a title whose key is a word n-gram of the query's, of up to title_exact_words
-- words, is a direct source with similarity 1; a title with trigram similarity >= title_floor
-- with an n-gram of up to title_fuzzy_words words is named approximately), joined back under
-- row security. The best title_sources_k sources give their memories, best first. A source
-- the query names exactly is direct (Recall puts it first) when its title has at least
-- title_direct_words words: a title shorter than that (by default a one-word title such as
-- "Anxiety" or "Summary") is a topic the question shares, not a document it names.
-- Contract with a recall across workers (statement/spread.go; TestEveryFormRunsEveryLane builds
-- its rounds for every plan and fails when this no longer holds): its lanes round puts the
-- merged title_sources in this one's place, found by its name at the start of its line.
title_sources AS MATERIALIZED (
  SELECT s.id, p.sim,
         p.direct AND cardinality(string_to_array(recall.title_key(s.title), ' ')) >= @title_direct_words::int AS direct
  FROM {{probe_titles @qlower::text, @title_exact_words::int, @title_fuzzy_words::int, @title_floor::float8}} p
  -- Each source the probe found by its key (OFFSET 0 keeps the subquery a probe per row):
  -- joined, a generic plan made on small tables read every scope's sources.
  CROSS JOIN LATERAL (SELECT s.id, s.title FROM {{recall.sources}} s WHERE s.id = p.id OFFSET 0) s
  ORDER BY p.sim DESC, s.id
  LIMIT @title_sources_k::int
),
-- The memories of one source, and of sources named equally well, tie and share their mid
-- rank (as mention's, with their count, ties).
title_lane AS (
  SELECT m.id, rank() OVER (ORDER BY t.sim DESC) + (count(*) OVER (PARTITION BY t.sim) - 1) / 2 AS rank, t.sim AS score, t.direct,
         count(*) OVER (PARTITION BY t.sim) AS ties
  FROM title_sources t
  JOIN {{recall.memories}} m ON m.source_id = t.id
  WHERE recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}})
  ORDER BY t.sim DESC, m.id
  LIMIT @title_k::int
)
