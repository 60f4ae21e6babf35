-- temporal: with a query window [t_start, t_end), memories whose occurred interval lies
-- within temporal_slack seconds of it, ranked by the gap (0 inside the window), then by
-- distance to the window's middle. Score: 1 / (1 + gap / temporal_scale). Candidates are the
-- temporal_k memories starting nearest the middle on each side, in each visible scope set,
-- read in occurred_start order from the (scope_key, occurred_start, id) index, so the lane
-- costs the same at any corpus size and for any share of it; it grows with the number of
-- scope sets the caller sees, as the bm25 lane's candidate reads do.
-- The forward side walks that index one row at a time (a recursive CTE, one index probe per
-- step and visible scope set, every row it reads visible) and stops a set's walk after
-- temporal_k of its rows pass the filters or at the end of the slack: row security's
-- predicate looks very selective to the planner whatever the caller's scopes, so a plain
-- ORDER BY ... LIMIT was planned as a bitmap read and sort of the whole slack range, and one
-- walk over every caller's memories read about a hundred rows per step for a caller who sees
-- 1% of them.
temporal_fwd (scope_key, id, occurred_start, occurred_end, ok, hits) AS (
  SELECT s.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, x.ok::int
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}) AS ok
    FROM {{recall.memories}} m
    WHERE @t_start::timestamptz IS NOT NULL
      AND m.scope_key = s.scope_key
      AND m.occurred_start >= @t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2
    ORDER BY m.occurred_start, m.id
    LIMIT 1
  ) x
  WHERE x.occurred_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
  UNION ALL
  SELECT w.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, w.hits + x.ok::int
  FROM temporal_fwd w
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}) AS ok
    FROM {{recall.memories}} m
    WHERE m.scope_key = w.scope_key AND (m.occurred_start, m.id) > (w.occurred_start, w.id)
    ORDER BY m.occurred_start, m.id
    LIMIT 1
  ) x
  WHERE w.hits < @temporal_k::int
    AND x.occurred_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
),
-- The backward side walks the same index downwards from the middle while memories start
-- within the slack before the window (every one of those reaches it: occurred_end >=
-- occurred_start). Memories that started earlier and still reach the window (long
-- intervals) come after them in that order; they are read from the occurred_end index, and
-- only when the walk found fewer than temporal_k.
temporal_bwd (scope_key, id, occurred_start, occurred_end, ok, hits) AS (
  SELECT s.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, x.ok::int
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}) AS ok
    FROM {{recall.memories}} m
    WHERE @t_start::timestamptz IS NOT NULL
      AND m.scope_key = s.scope_key
      AND m.occurred_start < @t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2
    ORDER BY m.occurred_start DESC, m.id DESC
    LIMIT 1
  ) x
  WHERE x.occurred_start >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
  UNION ALL
  SELECT w.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, w.hits + x.ok::int
  FROM temporal_bwd w
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}}) AS ok
    FROM {{recall.memories}} m
    WHERE m.scope_key = w.scope_key AND (m.occurred_start, m.id) < (w.occurred_start, w.id)
    ORDER BY m.occurred_start DESC, m.id DESC
    LIMIT 1
  ) x
  WHERE w.hits < @temporal_k::int
    AND x.occurred_start >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
),
temporal_long AS MATERIALIZED (
  SELECT m.id, m.occurred_start, m.occurred_end
  FROM {{recall.memories}} m
  WHERE (SELECT count(*) FROM temporal_bwd WHERE ok) < @temporal_k::int
    AND m.occurred_end >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
    AND m.occurred_start < @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
    AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}})
  ORDER BY m.occurred_start DESC, m.id DESC
  LIMIT @temporal_k::int
),
-- Memories whose text refers to a time near the window ("last month", said in April, for a
-- question about March; write/refers.go): per visible scope set, up to temporal_refers of
-- them, nearest the window's middle, from the partial (scope_key, refers_start, id) index. A
-- referred span is at most a year long (the longest expression when reads), which bounds the
-- index range; only the memories that refer to a time are in that index.
temporal_refers AS MATERIALIZED (
  SELECT x.id, x.refers_start, x.refers_end
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.refers_start, m.refers_end
    FROM {{recall.memories}} m
    WHERE @t_start::timestamptz IS NOT NULL AND @temporal_refers::int > 0
      AND m.scope_key = s.scope_key
      AND m.refers_start IS NOT NULL
      AND m.refers_start >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8) - interval '367 days'
      AND m.refers_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
      AND m.refers_end > @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
      AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, {{filter}})
    ORDER BY abs(extract(epoch FROM m.refers_start - (@t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2))), m.id
    LIMIT @temporal_refers::int
  ) x
),
temporal_candidates AS MATERIALIZED (
  SELECT f.id, f.occurred_start, f.occurred_end, false AS tail FROM temporal_fwd f WHERE f.ok
  UNION ALL
  SELECT r.id, r.refers_start, r.refers_end - interval '1 microsecond', false FROM temporal_refers r
  UNION ALL
  SELECT y.id, y.occurred_start, y.occurred_end, true FROM (
    SELECT b.id, b.occurred_start, b.occurred_end FROM temporal_bwd b WHERE b.ok
    UNION ALL
    SELECT l.id, l.occurred_start, l.occurred_end FROM temporal_long l
    ORDER BY 2 DESC, 1 DESC
    LIMIT @temporal_k::int
  ) y
),
-- Each candidate's gap to the window and distance to its middle, in seconds. tail marks the
-- candidates before the middle, of which only the temporal_k latest count over every visible
-- scope set (a recall across workers cuts them again when it merges: spread.go).
temporal_gaps AS (
  SELECT c.id, c.tail, c.occurred_start,
         greatest(extract(epoch FROM @t_start::timestamptz - coalesce(c.occurred_end, c.occurred_start)),
                  extract(epoch FROM c.occurred_start - @t_end::timestamptz), 0)::float8 AS gap,
         abs(extract(epoch FROM c.occurred_start - (@t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2)))::float8 AS mid
  FROM temporal_candidates c
),
-- A memory found both by its occurred time and by the time it refers to takes the nearer.
temporal_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.gap, x.mid, x.id) AS rank,
         1 / (1 + x.gap / @temporal_scale::float8) AS score
  FROM (
    SELECT c.id, min(c.gap) AS gap, min(c.mid) AS mid
    FROM temporal_gaps c
    GROUP BY c.id
    ORDER BY gap, mid, c.id
    LIMIT @temporal_k::int
  ) x
)
