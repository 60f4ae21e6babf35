-- temporal: with a query window [t_start, t_end), memories whose occurred interval lies
-- within temporal_slack seconds of it, ranked by the gap (0 inside the window), then by
-- distance to the window's middle. Score: 1 / (1 + gap / temporal_scale). Candidates are the
-- temporal_k memories starting nearest the middle on each side, read in occurred_start
-- order from its index, so the lane costs the same at any corpus size.
temporal_candidates AS MATERIALIZED (
  SELECT x.id, x.occurred_start, x.occurred_end FROM (
    SELECT m.id, m.occurred_start, m.occurred_end
    FROM recall.memories m
    WHERE @t_start::timestamptz IS NOT NULL
      AND m.occurred_start >= @t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2
      AND m.occurred_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
      AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
            @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
    ORDER BY m.occurred_start, m.id
    LIMIT @temporal_k::int
  ) x
  UNION ALL
  SELECT y.id, y.occurred_start, y.occurred_end FROM (
    SELECT m.id, m.occurred_start, m.occurred_end
    FROM recall.memories m
    WHERE @t_start::timestamptz IS NOT NULL
      AND m.occurred_start < @t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2
      AND coalesce(m.occurred_end, m.occurred_start) >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
      AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start,
            @f_kinds, @f_tags, @f_tags_mode, @f_metadata, @f_from, @f_to)
    ORDER BY m.occurred_start DESC, m.id
    LIMIT @temporal_k::int
  ) y
),
temporal_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.gap, x.mid, x.id) AS rank,
         1 / (1 + x.gap / @temporal_scale::float8) AS score
  FROM (
    SELECT c.id,
           greatest(extract(epoch FROM @t_start::timestamptz - coalesce(c.occurred_end, c.occurred_start)),
                    extract(epoch FROM c.occurred_start - @t_end::timestamptz), 0)::float8 AS gap,
           abs(extract(epoch FROM c.occurred_start - (@t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2)))::float8 AS mid
    FROM temporal_candidates c
    ORDER BY gap, mid, c.id
    LIMIT @temporal_k::int
  ) x
)
