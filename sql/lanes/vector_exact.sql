-- recall.vector_nearest: the vector lane's exact search for a caller who sees few memories
-- (sql/lanes/vector_hits.sql picks it): the k memories the caller sees nearest to qvec by
-- cosine distance, ties by id. It runs as the owner and applies the read rule itself, as
-- recall.probe_entities does (sql/lanes/entity_probe.sql says why): it reads only the scope
-- sets whose scopes overlap the caller's read scopes, by their text key.
--
-- Why a function: under row security a scan of memories must read each row's scopes, so
-- the exact search fetched every one of the caller's rows from the heap, scattered over
-- the whole table (at a million memories, a caller of 10,000 read 10,000 heap pages). The
-- owner's scan needs only the scope key, the id and the embedding, which
-- memories_embedding_<dim>_scope (recall.ensure_vector_index) holds in key order: an
-- index-only scan of the caller's part of it, a few rows per page. A dimension above
-- recall.vector_scope_max_dim has no such index (its rows would not fit a btree entry) and
-- the same query reads the heap by memories_scope_time_idx.
--
-- The index's predicate names scope_key IS NOT NULL (always true: the key is generated from
-- the scopes), which this query states and the HNSW branch's does not: a full scan of the
-- scope index must not pass for the big caller's nearest-neighbour search.
-- The plan is made for each call (plan_cache_mode = force_custom_plan), so qvec's
-- dimension is a constant and proves the partial index's predicate. The statement takes
-- this branch only when no filter is set: recall.passes needs columns the index lacks, and
-- a filter applied after the LIMIT could leave the lane short.
--
-- recall.vector_scope_max_dim: a btree entry holds at most about 2,700 bytes; the id (8),
-- the scope key (at most 512 bytes, write.MaxScopeSetBytes) and the embedding (4 bytes a
-- dimension and 8) leave room for 512 dimensions.
CREATE OR REPLACE FUNCTION recall.vector_scope_max_dim() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 512 $$;

CREATE OR REPLACE FUNCTION recall.vector_nearest(qvec vector, k int)
RETURNS TABLE (id bigint, distance float8)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_custom_plan SET enable_seqscan = off
ROWS 100
AS $$
BEGIN
  RETURN QUERY
  SELECT m.id, m.embedding <=> qvec
  FROM recall.memories m
  WHERE m.scope_key = ANY (ARRAY(SELECT recall.scope_key(c.scopes) FROM recall.bm25_corpus c
                                  WHERE c.scopes && recall.read_scopes()))
    AND m.scope_key IS NOT NULL
    AND vector_dims(m.embedding) = vector_dims(qvec)
  ORDER BY 2, m.id
  LIMIT k;
END
$$;
-- PL/pgSQL resolves names when it runs: pgvector's functions and <=> are found on the
-- search path, after pg_catalog, in the schema the vector extension was created in.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION recall.vector_nearest(%1$I.vector, int) SET search_path = pg_catalog, %1$I, pg_temp',
    (SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'vector'));
END
$$;
REVOKE ALL ON FUNCTION recall.vector_nearest(vector, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.vector_nearest(vector, int) TO recall_runtime;
