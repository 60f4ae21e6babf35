-- title: sources whose title appears in the raw query, by trigram word similarity; a title
-- contained verbatim in the query marks its memories as direct sources.
title_sources AS MATERIALIZED (
  SELECT s.id, word_similarity(lower(s.title), @qlower::text)::float8 AS sim,
         length(s.title) >= 3 AND strpos(@qlower::text, lower(s.title)) > 0 AS direct
  FROM recall.sources s
  WHERE lower(s.title) <% @qlower::text
    AND word_similarity(lower(s.title), @qlower::text) >= @title_floor::float8
  ORDER BY sim DESC, s.id
  LIMIT @title_sources_k::int
),
title_lane AS (
  SELECT m.id, row_number() OVER (ORDER BY t.sim DESC, m.id) AS rank, t.sim AS score, t.direct
  FROM title_sources t
  JOIN recall.memories m ON m.source_id = t.id
  WHERE recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
          @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
  ORDER BY t.sim DESC, m.id
  LIMIT @title_k::int
)
