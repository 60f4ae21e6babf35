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
