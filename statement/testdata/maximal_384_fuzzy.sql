WITH RECURSIVE
visible_sets AS MATERIALIZED (
  SELECT recall.scope_key(c.scopes) AS scope_key, c.docs, c.total_len, c.cdocs, c.ctotal_len, c.ctotal_nlen
  FROM recall.visible_corpus() c
),
visible_stats AS MATERIALIZED (
  SELECT coalesce(sum(docs), 0)::float8 AS n,
         coalesce(sum(total_len)::float8 / nullif(sum(docs), 0), 1) AS avgdl,
         coalesce(sum(cdocs), 0)::float8 AS cn,
         coalesce(sum(ctotal_len), 0)::float8 AS clen,
         coalesce(sum(ctotal_nlen), 0)::float8 AS cnlen
  FROM visible_sets
),
vector_visible AS MATERIALIZED (
  SELECT v.n ^ 2 <= @vector_exact_scale::float8 * greatest(c.reltuples, v.n, 1) AS exact
  FROM visible_stats v
  CROSS JOIN (SELECT reltuples FROM pg_class WHERE oid = 'recall.memories'::regclass) c
),
vector_hits AS MATERIALIZED (
  (SELECT m.id, m.embedding::vector(384) <=> @qvec::vector(384) AS distance
   FROM recall.memories m
   WHERE NOT (SELECT exact FROM vector_visible)
     AND vector_dims(m.embedding) = 384
     AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
   ORDER BY m.embedding::vector(384) <=> @qvec::vector(384)
   LIMIT @vector_k::int)
  UNION ALL
  (SELECT h.id, h.distance
   FROM recall.vector_nearest(@qvec::vector(384), @vector_k::int) h
   WHERE (SELECT exact FROM vector_visible) AND @f_none::bool)
  UNION ALL
  (SELECT m.id, m.embedding::vector(384) <=> @qvec::vector(384) AS distance
   FROM visible_sets s
   CROSS JOIN LATERAL (
     SELECT m.id, m.embedding FROM recall.memories m
     WHERE m.scope_key = s.scope_key AND vector_dims(m.embedding) = 384
       AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
     OFFSET 0
   ) m
   WHERE (SELECT exact FROM vector_visible) AND NOT @f_none::bool
   ORDER BY 2, m.id
   LIMIT @vector_k::int)
),
bm25_terms_q AS MATERIALIZED (
  SELECT x.term, max(x.w) AS w
  FROM (
    SELECT l.lexeme AS term, 1::float8 AS w FROM unnest(to_tsvector('english', @qtext::text)) AS l
    UNION ALL
    SELECT l.lexeme, @expansion_weight::float8 FROM unnest(to_tsvector('english', @xtext::text)) AS l
    WHERE @expansion_weight::float8 > 0
  ) x
  GROUP BY x.term
),
bm25_idf AS MATERIALIZED (
  SELECT q.term, q.w * ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf,
         q.w * ln(1 + (s.cn - d.cdf + 0.5) / (d.cdf + 0.5)) AS cidf,
         greatest(d.df, d.cdf) <= @bm25_whole::int AS whole
  FROM bm25_terms_q q
  CROSS JOIN visible_stats s
  CROSS JOIN LATERAL (SELECT coalesce(sum(t.df), 0)::float8 AS df, coalesce(sum(t.cdf), 0)::float8 AS cdf
                      FROM recall.bm25_terms t WHERE t.term = q.term) d
  WHERE d.df > 0 OR d.cdf > 0
),
bm25_candidates AS MATERIALIZED (
  SELECT DISTINCT p.memory_id AS id
  FROM bm25_idf q
  CROSS JOIN visible_sets s
  CROSS JOIN LATERAL (
    SELECT p.memory_id FROM recall.bm25_postings p
    WHERE p.scope_key = s.scope_key AND p.term = q.term
    ORDER BY p.impact DESC
    LIMIT @bm25_postings::int
  ) p
  WHERE @f_none::bool OR EXISTS (
    SELECT 1 FROM recall.memories m
    WHERE m.id = p.memory_id AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter))
),
bm25_whole AS (
  SELECT q.term, q.idf, q.cidf, p.memory_id, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len
  FROM bm25_idf q
  CROSS JOIN visible_sets s
  CROSS JOIN LATERAL (
    SELECT p.memory_id, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len FROM recall.bm25_postings p
    WHERE p.scope_key = s.scope_key AND p.term = q.term
    OFFSET 0
  ) p
  WHERE q.whole
),
bm25_parts AS (
  SELECT w.memory_id AS id, w.term, w.idf, w.cidf, w.tf, w.doc_len, w.ntf, w.ndoc_len, w.positioned, w.ptf, w.pdoc_len
  FROM bm25_whole w
  WHERE (w.memory_id IN (SELECT id FROM bm25_candidates)) IS TRUE
  UNION ALL
  SELECT c.id, q.term, q.idf, q.cidf, p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len
  FROM bm25_candidates c
  CROSS JOIN bm25_idf q
  CROSS JOIN LATERAL (
    SELECT p.tf, p.doc_len, p.ntf, p.ndoc_len, p.positioned, p.ptf, p.pdoc_len FROM recall.bm25_postings p
    WHERE p.memory_id = c.id AND p.term = q.term
    LIMIT 1
  ) p
  WHERE NOT q.whole
),
bm25_own AS (
  SELECT DISTINCT ON (b.id) b.id,
         sum(b.idf * b.tf * (@bm25_k1::float8 + 1)
             / (b.tf + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * b.doc_len / s.avgdl)))
           OVER (PARTITION BY b.id ORDER BY b.term ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS score,
         b.positioned
  FROM bm25_parts b
  CROSS JOIN visible_stats s
  WHERE b.tf > 0
  ORDER BY b.id
),
bm25_passage AS (
  SELECT DISTINCT ON (x.id) x.id, x.ord::int AS ord, x.score
  FROM (
    SELECT b.id, u.ord,
           sum(b.idf * u.tf * (@bm25_k1::float8 + 1)
               / (u.tf + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * u.len / s.avgdl)) ORDER BY b.term) AS score
    FROM bm25_parts b
    CROSS JOIN LATERAL unnest(b.ptf, b.pdoc_len) WITH ORDINALITY AS u(tf, len, ord)
    CROSS JOIN visible_stats s
    WHERE b.ptf IS NOT NULL AND u.tf > 0
    GROUP BY b.id, u.ord
  ) x
  ORDER BY x.id, x.score DESC, x.ord
),
bm25_scored AS (
  SELECT o.id, greatest(o.score, p.score) AS score, o.positioned, p.ord AS passage
  FROM bm25_own o
  LEFT JOIN bm25_passage p ON p.id = o.id
),
mention_entities AS MATERIALIZED (
  SELECT e.id, p.sim
  FROM recall.probe_entities(@qentities::text[], true, @mention_floor::float8) p
  CROSS JOIN LATERAL (SELECT e.id FROM recall.entities e WHERE e.id = p.id OFFSET 0) e
  ORDER BY p.sim DESC, e.id
  LIMIT @mention_entities_k::int
),
vector_lane AS (
  SELECT id, row_number() OVER (ORDER BY distance, id) AS rank, 1 - distance AS score
  FROM vector_hits
  WHERE distance <= @vector_max_distance::float8
),
bm25_lane AS (
  SELECT id, row_number() OVER (ORDER BY score DESC, id) AS rank, score, passage
  FROM bm25_scored
  ORDER BY score DESC, id
  LIMIT @bm25_k::int
),
mention_weights AS MATERIALIZED (
  SELECT me.id, me.sim * ln(1 + (c.n - d.df + 0.5) / (d.df + 0.5)) AS w
  FROM mention_entities me
  CROSS JOIN visible_stats c
  CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM recall.mentions mn WHERE mn.entity_id = me.id AND NOT mn.speaker) d
),
mention_lane AS (
  SELECT x.id, rank() OVER (ORDER BY x.score DESC) + (count(*) OVER (PARTITION BY x.score) - 1) / 2 AS rank, x.score,
         count(*) OVER (PARTITION BY x.score) AS ties
  FROM (
    SELECT mn.memory_id AS id, sum(mw.w ORDER BY mw.id) AS score
    FROM mention_weights mw
    CROSS JOIN LATERAL (
      SELECT mn.memory_id FROM recall.mentions mn
      WHERE mn.entity_id = mw.id AND NOT mn.speaker
      ORDER BY mn.memory_id DESC
      LIMIT @mention_postings::int
    ) mn
    WHERE @f_none::bool OR EXISTS (
      SELECT 1 FROM recall.memories m
      WHERE m.id = mn.memory_id AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter))
    GROUP BY mn.memory_id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @mention_k::int
),
graph_named AS MATERIALIZED (
  SELECT id FROM mention_entities
),
graph_seeds AS MATERIALIZED (
  SELECT id FROM graph_named
  UNION
  SELECT mn.entity_id
  FROM (
    (SELECT id FROM bm25_scored ORDER BY score DESC, id LIMIT @graph_seed_hits::int)
    UNION
    (SELECT id FROM vector_hits ORDER BY distance, id LIMIT @graph_seed_hits::int)
  ) h
  JOIN recall.mentions mn ON mn.memory_id = h.id AND NOT mn.speaker
),
graph_walk (depth, ids, seen) AS (
  SELECT 0, a.ids, a.ids
  FROM (SELECT coalesce(array_agg(id ORDER BY id), '{}') AS ids FROM graph_seeds) a
  UNION ALL
  SELECT w.depth + 1, nx.ids, w.seen || nx.ids
  FROM graph_walk w
  CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(n.id ORDER BY n.id), '{}') AS ids
    FROM (
      SELECT r.dst_id AS id FROM recall.relations r WHERE r.src_id = ANY (w.ids) AND (r.valid_from IS NULL OR r.valid_from <= @as_of::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @as_of::timestamptz)
      UNION
      SELECT r.src_id FROM recall.relations r WHERE r.dst_id = ANY (w.ids) AND (r.valid_from IS NULL OR r.valid_from <= @as_of::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @as_of::timestamptz)
      EXCEPT
      SELECT unnest(w.seen)
    ) n
  ) nx
  WHERE w.depth < @graph_hops::int AND cardinality(w.ids) > 0
    AND (SELECT count(*) FROM (
          SELECT 1 FROM unnest(w.seen) AS s(id)
          WHERE (SELECT true FROM recall.entities e WHERE e.id = s.id)
          LIMIT @graph_frontier::int) v) < @graph_frontier::int
),
graph_nodes AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY x.id)::int AS ord, x.id, x.depth = 0 AS seed, x.depth
  FROM (
    SELECT w.id, w.depth
    FROM (SELECT u.id, g.depth FROM graph_walk g CROSS JOIN LATERAL unnest(g.ids) AS u(id) ORDER BY 2, 1 OFFSET 0) w
    WHERE (SELECT true FROM recall.entities e WHERE e.id = w.id)
    ORDER BY w.depth, w.id
    LIMIT @graph_frontier::int
  ) x
),
graph_index AS MATERIALIZED (
  SELECT array_agg(id ORDER BY ord) AS ids
  FROM graph_nodes
),
graph_pairs AS MATERIALIZED (
  SELECT x.s, x.d, x.w
  FROM graph_index gi
  CROSS JOIN LATERAL (
    SELECT width_bucket(r.src_id, gi.ids) AS s, width_bucket(r.dst_id, gi.ids) AS d, r.weight AS w, r.src_id
    FROM recall.relations r
    WHERE r.dst_id = ANY (gi.ids) AND (r.valid_from IS NULL OR r.valid_from <= @as_of::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @as_of::timestamptz)
  ) x
  WHERE gi.ids[x.s] = x.src_id
),
graph_edges AS MATERIALIZED (
  SELECT x.src, x.dst, x.w / sum(x.w) OVER (PARTITION BY x.src) AS wn
  FROM (
    SELECT y.src, y.dst, y.w, row_number() OVER (PARTITION BY y.src ORDER BY y.w DESC, y.dst) AS nth
    FROM (
      SELECT u.src, u.dst, sum(u.w) AS w
      FROM (SELECT s, d, w FROM graph_pairs UNION ALL SELECT d, s, w FROM graph_pairs) u (src, dst, w)
      GROUP BY u.src, u.dst
    ) y
  ) x
  WHERE x.nth <= @graph_degree::int
),
graph_p AS MATERIALIZED (
  SELECT n.ord, n.id,
         CASE WHEN n.seed THEN 1.0::float8 / (SELECT count(*) FROM graph_nodes WHERE seed) ELSE 0::float8 END AS p,
         n.ord <> ALL (ARRAY(SELECT DISTINCT e.src FROM graph_edges e)) AS dangling
  FROM graph_nodes n
),
graph_w AS MATERIALIZED (
  SELECT u.ord, max(u.p) AS p,
         (coalesce('{' || string_agg(u.src || ':' || u.wn, ',' ORDER BY u.src) FILTER (WHERE u.src IS NOT NULL) || '}', '{}')
           || '/' || (SELECT cardinality(ids) FROM graph_index))::sparsevec::vector AS w_in
  FROM (
    SELECT n.ord, n.p, NULL::int AS src, NULL::float8 AS wn FROM graph_p n
    UNION ALL
    SELECT e.dst, NULL, e.src, e.wn FROM graph_edges e
    UNION ALL
    SELECT s.ord, NULL, d.ord, s.p FROM graph_p s CROSS JOIN graph_p d WHERE s.p > 0 AND d.dangling
  ) u
  GROUP BY u.ord
),
graph_ppr (i, r) AS (
  SELECT 0, (SELECT array_agg(p ORDER BY ord) FROM graph_p)::vector
  UNION ALL
  SELECT g.i + 1, (
    SELECT array_agg((1 - @graph_damping::float8) * n.p - @graph_damping::float8 * (n.w_in <#> g.r)
                     ORDER BY n.ord)::vector
    FROM graph_w n
  )
  FROM graph_ppr g
  WHERE g.i < @graph_iterations::int AND g.r IS NOT NULL
),
graph_mass AS MATERIALIZED (
  SELECT f.r::real[]::float8[] AS mass FROM graph_ppr f ORDER BY f.i DESC LIMIT 1
),
graph_top AS MATERIALIZED (
  SELECT n.id, g.mass[n.ord] AS mass
  FROM graph_nodes n CROSS JOIN graph_mass g
  WHERE g.mass[n.ord] > 0
  ORDER BY 2 DESC, n.id
  LIMIT @graph_entities::int
),
graph_pool AS MATERIALIZED (
  (SELECT id FROM bm25_scored ORDER BY score DESC, id LIMIT @graph_pool::int)
  UNION
  SELECT id FROM vector_hits WHERE distance <= @vector_max_distance::float8
),
graph_top_index AS MATERIALIZED (
  SELECT array_agg(id ORDER BY id) AS ids, array_agg(mass ORDER BY id) AS masses FROM graph_top
),
graph_scored AS MATERIALIZED (
  SELECT x.id, x.entity_id, x.masses[x.b] AS mass
  FROM (
    SELECT p.id, mn.entity_id, t.ids, t.masses, width_bucket(mn.entity_id, t.ids) AS b
    FROM (SELECT (SELECT ids FROM graph_top_index) AS ids, (SELECT masses FROM graph_top_index) AS masses) t
    CROSS JOIN graph_pool p
    JOIN recall.mentions mn ON mn.memory_id = p.id AND NOT mn.speaker
  ) x
  WHERE x.ids[x.b] = x.entity_id
),
graph_lane AS (
  SELECT x.id, rank() OVER (ORDER BY x.score DESC) + (count(*) OVER (PARTITION BY x.score) - 1) / 2 AS rank, x.score
  FROM (
    SELECT id, sum(mass) AS score
    FROM graph_scored
    GROUP BY id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @graph_k::int
),
temporal_fwd (scope_key, id, occurred_start, occurred_end, ok, hits) AS (
  SELECT s.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, x.ok::int
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter) AS ok
    FROM recall.memories m
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
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter) AS ok
    FROM recall.memories m
    WHERE m.scope_key = w.scope_key AND (m.occurred_start, m.id) > (w.occurred_start, w.id)
    ORDER BY m.occurred_start, m.id
    LIMIT 1
  ) x
  WHERE w.hits < @temporal_k::int
    AND x.occurred_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
),
temporal_bwd (scope_key, id, occurred_start, occurred_end, ok, hits) AS (
  SELECT s.scope_key, x.id, x.occurred_start, x.occurred_end, x.ok, x.ok::int
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.occurred_start, m.occurred_end,
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter) AS ok
    FROM recall.memories m
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
           recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter) AS ok
    FROM recall.memories m
    WHERE m.scope_key = w.scope_key AND (m.occurred_start, m.id) < (w.occurred_start, w.id)
    ORDER BY m.occurred_start DESC, m.id DESC
    LIMIT 1
  ) x
  WHERE w.hits < @temporal_k::int
    AND x.occurred_start >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
),
temporal_long AS MATERIALIZED (
  SELECT m.id, m.occurred_start, m.occurred_end
  FROM recall.memories m
  WHERE (SELECT count(*) FROM temporal_bwd WHERE ok) < @temporal_k::int
    AND m.occurred_end >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
    AND m.occurred_start < @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
    AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
  ORDER BY m.occurred_start DESC, m.id DESC
  LIMIT @temporal_k::int
),
temporal_refers AS MATERIALIZED (
  SELECT x.id, x.refers_start, x.refers_end
  FROM visible_sets s
  CROSS JOIN LATERAL (
    SELECT m.id, m.refers_start, m.refers_end
    FROM recall.memories m
    WHERE @t_start::timestamptz IS NOT NULL AND @temporal_refers::int > 0
      AND m.scope_key = s.scope_key
      AND m.refers_start IS NOT NULL
      AND m.refers_start >= @t_start::timestamptz - make_interval(secs => @temporal_slack::float8) - interval '367 days'
      AND m.refers_start < @t_end::timestamptz + make_interval(secs => @temporal_slack::float8)
      AND m.refers_end > @t_start::timestamptz - make_interval(secs => @temporal_slack::float8)
      AND recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
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
temporal_gaps AS (
  SELECT c.id, c.tail, c.occurred_start,
         greatest(extract(epoch FROM @t_start::timestamptz - coalesce(c.occurred_end, c.occurred_start)),
                  extract(epoch FROM c.occurred_start - @t_end::timestamptz), 0)::float8 AS gap,
         abs(extract(epoch FROM c.occurred_start - (@t_start::timestamptz + (@t_end::timestamptz - @t_start::timestamptz) / 2)))::float8 AS mid
  FROM temporal_candidates c
),
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
),
title_sources AS MATERIALIZED (
  SELECT s.id, p.sim,
         p.direct AND cardinality(string_to_array(recall.title_key(s.title), ' ')) >= @title_direct_words::int AS direct
  FROM recall.probe_titles(@qlower::text, @title_exact_words::int, @title_fuzzy_words::int, @title_floor::float8) p
  CROSS JOIN LATERAL (SELECT s.id, s.title FROM recall.sources s WHERE s.id = p.id OFFSET 0) s
  ORDER BY p.sim DESC, s.id
  LIMIT @title_sources_k::int
),
title_lane AS (
  SELECT m.id, rank() OVER (ORDER BY t.sim DESC) + (count(*) OVER (PARTITION BY t.sim) - 1) / 2 AS rank, t.sim AS score, t.direct,
         count(*) OVER (PARTITION BY t.sim) AS ties
  FROM title_sources t
  JOIN recall.memories m ON m.source_id = t.id
  WHERE recall.passes(m.kind, m.tags, m.metadata, m.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
  ORDER BY t.sim DESC, m.id
  LIMIT @title_k::int
),
context_scored AS MATERIALIZED (
  SELECT x.id, x.score
  FROM (
    SELECT DISTINCT ON (b.id) b.id,
           sum(b.cidf * (b.tf + @context_weight::float8 * b.ntf) * (@bm25_k1::float8 + 1)
               / ((b.tf + @context_weight::float8 * b.ntf)
                  + @bm25_k1::float8 * (1 - @bm25_b::float8 + @bm25_b::float8 * (b.doc_len + @context_weight::float8 * b.ndoc_len)
                    / greatest((s.clen + @context_weight::float8 * s.cnlen) / nullif(s.cn, 0), 1))))
             OVER (PARTITION BY b.id ORDER BY b.term ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS score
    FROM bm25_parts b
    CROSS JOIN visible_stats s
    WHERE b.positioned AND (b.tf > 0 OR @context_weight::float8 > 0)
    ORDER BY b.id
  ) x
  UNION ALL
  SELECT c.id, c.score FROM bm25_scored c WHERE NOT c.positioned
),
context_top AS MATERIALIZED (
  SELECT id, score FROM context_scored ORDER BY score DESC, id LIMIT @context_k::int
),
context_handoff AS (
  SELECT n.id, q.id AS question, @context_handoff::float8 * c.score AS score
  FROM context_top c
  JOIN recall.memories q ON q.id = c.id
  CROSS JOIN LATERAL (
    SELECT n.id
    FROM recall.memories n
    WHERE n.source_id = q.source_id AND n.position = q.position + 1 AND n.scopes = q.scopes AND n.speaker <> q.speaker
      AND recall.passes(n.kind, n.tags, n.metadata, n.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
    ORDER BY n.position
  ) n
  WHERE @context_handoff::float8 > 0 AND q.is_question
),
context_lane AS (
  SELECT x.id, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank, x.score
  FROM (
    SELECT u.id, max(u.score) AS score
    FROM (SELECT id, score FROM context_scored UNION ALL SELECT id, score FROM context_handoff) u
    GROUP BY u.id
  ) x
  ORDER BY x.score DESC, x.id
  LIMIT @context_k::int
),
candidates AS (
  SELECT 0 AS lane, id, rank, score::float8 AS score, false AS direct,
         NULL::int AS passage FROM vector_lane
  UNION ALL
  SELECT 1 AS lane, id, rank, score::float8 AS score, false AS direct,
         passage FROM bm25_lane
  UNION ALL
  SELECT 2 AS lane, id, rank, score::float8 AS score, false AS direct,
         NULL::int AS passage FROM mention_lane
  UNION ALL
  SELECT 3 AS lane, id, rank, score::float8 AS score, false AS direct,
         NULL::int AS passage FROM graph_lane
  UNION ALL
  SELECT 4 AS lane, id, rank, score::float8 AS score, false AS direct,
         NULL::int AS passage FROM temporal_lane
  UNION ALL
  SELECT 5 AS lane, id, rank, score::float8 AS score, direct,
         NULL::int AS passage FROM title_lane
  UNION ALL
  SELECT 6 AS lane, id, rank, score::float8 AS score, false AS direct,
         NULL::int AS passage FROM context_lane
),
fused_rrf AS (
  SELECT x.id, x.direct,
    ARRAY[x.vector_rank, x.bm25_rank, x.mention_rank, x.graph_rank, x.temporal_rank, x.title_rank, x.context_rank]::bigint[] AS lane_ranks,
    ARRAY[x.vector_score, x.bm25_score, x.mention_score, x.graph_score, x.temporal_score, x.title_score, x.context_score]::float8[] AS lane_scores,
    coalesce(@w_vector::float8 / (@rrf_k::float8 + x.vector_rank), 0)
      + coalesce(@w_bm25::float8 / (@rrf_k::float8 + x.bm25_rank), 0)
      + coalesce(@w_mention::float8 / (@rrf_k::float8 + x.mention_rank), 0)
      + coalesce(@w_graph::float8 / (@rrf_k::float8 + x.graph_rank), 0)
      + coalesce(@w_temporal::float8 / (@rrf_k::float8 + x.temporal_rank), 0)
      + coalesce(@w_title::float8 / (@rrf_k::float8 + x.title_rank), 0)
      + coalesce(@w_context::float8 / (@rrf_k::float8 + x.context_rank), 0) AS rrf,
    x.passage
  FROM (
    SELECT id, max(passage) AS passage,
      max(rank) FILTER (WHERE lane = 0) AS vector_rank, max(score) FILTER (WHERE lane = 0) AS vector_score,
      max(rank) FILTER (WHERE lane = 1) AS bm25_rank, max(score) FILTER (WHERE lane = 1) AS bm25_score,
      max(rank) FILTER (WHERE lane = 2) AS mention_rank, max(score) FILTER (WHERE lane = 2) AS mention_score,
      max(rank) FILTER (WHERE lane = 3) AS graph_rank, max(score) FILTER (WHERE lane = 3) AS graph_score,
      max(rank) FILTER (WHERE lane = 4) AS temporal_rank, max(score) FILTER (WHERE lane = 4) AS temporal_score,
      max(rank) FILTER (WHERE lane = 5) AS title_rank, max(score) FILTER (WHERE lane = 5) AS title_score,
      max(rank) FILTER (WHERE lane = 6) AS context_rank, max(score) FILTER (WHERE lane = 6) AS context_score,
      bool_or(direct) AS direct
    FROM candidates
    GROUP BY id
  ) x
),
output_access AS (
  SELECT f.*,
         @w_recency::float8 * coalesce(exp(-ln(2) * extract(epoch FROM @now::timestamptz - ac.last_accessed) / @recency_half_life::float8), 0) AS recency,
         @w_frequency::float8 * ln(1 + coalesce(ac.access_count, 0)) AS frequency,
         ac.last_accessed, coalesce(ac.access_count, 0) AS access_count
  FROM fused_rrf f
  LEFT JOIN LATERAL (
    SELECT ac.last_accessed, ac.access_count FROM recall.memory_access ac WHERE ac.memory_id = f.id OFFSET 0
  ) ac ON true
),
output_top AS MATERIALIZED (
  SELECT a.*, a.rrf + a.recency + a.frequency AS fused
  FROM output_access a
  ORDER BY fused DESC, a.id
  LIMIT @k::int
),
output_hits AS MATERIALIZED (
  SELECT t.id, m.source_id, m.position, m.scopes, m.speaker, m.is_question, m.text
  FROM output_top t
  JOIN recall.memories m ON m.id = t.id
  WHERE m.position IS NOT NULL
    AND recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz)
  ORDER BY t.fused DESC, t.id
  LIMIT @context_hits::int
),
output_context AS (
  SELECT n.id, h.id AS context_of, x.why
  FROM output_hits h
  CROSS JOIN LATERAL (VALUES (h.position + 1, 'answer'), (h.position - 1, 'reply_to')) AS x(position, why)
  JOIN recall.memories n ON n.source_id = h.source_id AND n.position = x.position
  WHERE n.scopes = h.scopes
    AND CASE x.why WHEN 'answer' THEN h.is_question AND n.speaker <> h.speaker
                                      AND cardinality(regexp_split_to_array(btrim(n.text), '\s+')) <= @context_answer::int
                   ELSE cardinality(regexp_split_to_array(btrim(h.text), '\s+')) <= @context_short::int END
    AND recall.passes(n.kind, n.tags, n.metadata, n.occurred_start, ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter)
    AND recall.holds(n.valid_from, n.valid_until, n.superseded_by, n.superseded_at, n.expires_at, @as_of::timestamptz, @now::timestamptz)
)
SELECT u.id, u.lane_ranks, u.lane_scores, u.direct, u.rrf, u.fused, u.last_accessed, u.access_count,
       u.context_of, u.context_why,
       m.external_id, m.kind, m.text, m.tags, m.metadata, m.occurred_start, m.occurred_end,
       m.source_id, coalesce(s.title, '') AS source_title, coalesce(s.uri, '') AS source_uri,
       s.external_id AS source_external_id, s.occurred_at AS source_occurred_at, s.metadata AS source_metadata,
       m.position, m.speaker,
       CASE WHEN m.kind = 'summary' THEN
         ARRAY(SELECT sc.memory_id FROM recall.summary_coverage sc JOIN recall.memories cm ON cm.id = sc.memory_id
               WHERE sc.summary_id = u.id ORDER BY sc.memory_id)
       END AS covers,
       CASE WHEN @graph_context::bool AND u.part = 0 THEN (SELECT jsonb_agg(jsonb_build_object('relation', x.id, 'subject', x.subject, 'predicate', x.predicate,
                                     'object', x.object, 'evidence', x.evidence, 'weight', x.weight, 'mass', x.mass)
                  ORDER BY x.mass DESC, x.id)
 FROM (
   SELECT r.id, es.name AS subject, r.predicate, ed.name AS object, ev.external_id AS evidence, r.weight,
          coalesce((SELECT t.mass FROM graph_top t WHERE t.id = r.src_id), 0) + coalesce((SELECT t.mass FROM graph_top t WHERE t.id = r.dst_id), 0) AS mass
   FROM (
     SELECT DISTINCT r.id
     FROM recall.mentions mn
     JOIN recall.relations r
       ON r.src_id = mn.entity_id AND r.dst_id IN (SELECT id FROM mention_entities)
       OR r.dst_id = mn.entity_id AND r.src_id IN (SELECT id FROM mention_entities)
     WHERE mn.memory_id = u.id AND NOT mn.speaker AND (r.valid_from IS NULL OR r.valid_from <= @as_of::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @as_of::timestamptz)
   ) k
   CROSS JOIN LATERAL (
     SELECT r.id, r.src_id, r.dst_id, r.predicate, r.weight, r.memory_id FROM recall.relations r WHERE r.id = k.id OFFSET 0
   ) r
   CROSS JOIN LATERAL (SELECT es.name FROM recall.entities es WHERE es.id = r.src_id OFFSET 0) es
   CROSS JOIN LATERAL (SELECT ed.name FROM recall.entities ed WHERE ed.id = r.dst_id OFFSET 0) ed
   LEFT JOIN LATERAL (SELECT ev.external_id FROM recall.memories ev WHERE ev.id = r.memory_id OFFSET 0) ev ON true
   ORDER BY 7 DESC, r.id
   LIMIT @graph_context_k::int
 ) x) END AS graph_context,
       CASE WHEN @entity_names::bool THEN
         ARRAY(SELECT x.name FROM (
                 SELECT (SELECT e.name FROM recall.entities e WHERE e.id = mn.entity_id) AS name, mn.entity_id
                 FROM recall.mentions mn WHERE mn.memory_id = u.id AND NOT mn.speaker) x
               ORDER BY x.name, x.entity_id)
       END AS entities,
       recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz) AS holds,
       m.valid_from, m.valid_until, m.superseded_at, m.expires_at,
       lower(m.passages[u.passage]) AS passage_start, upper(m.passages[u.passage]) AS passage_end,
       CASE WHEN m.superseded_by IS NOT NULL THEN
         (SELECT b.external_id FROM recall.memories b WHERE b.id = m.superseded_by AND b.scopes = m.scopes)
       END AS superseded_by
FROM (
  SELECT t.id, t.lane_ranks, t.lane_scores, t.direct, t.rrf, t.fused, t.last_accessed, t.access_count,
         NULL::bigint AS context_of, NULL::text AS context_why, 0 AS part, t.passage
  FROM output_top t
  UNION ALL
  SELECT c.id, NULL, NULL, false, 0, 0, NULL, 0, c.context_of, c.why, 1, NULL
  FROM output_context c
) u
JOIN recall.memories m ON m.id = u.id
LEFT JOIN recall.sources s ON s.id = m.source_id
WHERE (@keep_stale::bool AND u.part = 0
       OR recall.holds(m.valid_from, m.valid_until, m.superseded_by, m.superseded_at, m.expires_at, @as_of::timestamptz, @now::timestamptz))
  AND m.duplicate_of IS NULL
ORDER BY u.part, u.fused DESC, u.id, u.context_of
