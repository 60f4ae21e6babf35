-- recall.passes: the filters of a recall (recall.filter, one record built once per statement
-- from the binds; see sql/lanes/visible.sql), applied inside every lane before its LIMIT. A
-- NULL field filters nothing. Tag modes follow the usual memory-API semantics: any / all
-- include untagged memories, the _strict forms exclude them. A single SQL expression, so the
-- planner inlines it.
CREATE OR REPLACE FUNCTION recall.passes(kind text, tags text[], metadata jsonb, occurred timestamptz, f recall.filter)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (f.kinds IS NULL OR kind = ANY (f.kinds))
     AND (f.metadata IS NULL OR metadata @> f.metadata)
     AND (f.from_time IS NULL OR occurred >= f.from_time)
     AND (f.to_time IS NULL OR occurred < f.to_time)
     AND (f.tags IS NULL OR CASE f.tags_mode
           WHEN 'any'        THEN cardinality(tags) = 0 OR tags && f.tags
           WHEN 'any_strict' THEN tags && f.tags
           WHEN 'all'        THEN cardinality(tags) = 0 OR tags @> f.tags
           WHEN 'all_strict' THEN cardinality(tags) > 0 AND tags @> f.tags
         END)
$$;
GRANT EXECUTE ON FUNCTION recall.passes(text, text[], jsonb, timestamptz, recall.filter) TO recall_runtime;

-- recall.holds: whether a memory holds for a recall (sql/lanes/output.sql): not expired at
-- now (migration 00008), and at as_of within its validity and not yet superseded (migration
-- 00009). Inlined by the planner, as recall.passes is.
CREATE OR REPLACE FUNCTION recall.holds(valid_from timestamptz, valid_until timestamptz, superseded_by bigint,
                                        superseded_at timestamptz, expires_at timestamptz, as_of timestamptz, now timestamptz)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (expires_at IS NULL OR expires_at > now)
     AND (valid_from IS NULL OR valid_from <= as_of)
     AND (valid_until IS NULL OR valid_until > as_of)
     AND (superseded_by IS NULL OR superseded_at > as_of)
$$;
GRANT EXECUTE ON FUNCTION recall.holds(timestamptz, timestamptz, bigint, timestamptz, timestamptz, timestamptz, timestamptz) TO recall_runtime;
