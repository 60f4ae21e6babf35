-- Vector indexes for any embedding dimension. memories.embedding is an untyped vector, so one
-- table holds embeddings of any model. HNSW needs a fixed dimension, so each dimension in use
-- gets a partial expression index:
--   memories_embedding_<dim>_hnsw ON ((embedding::vector(dim)) vector_cosine_ops)
--   WHERE vector_dims(embedding) = dim
-- and the recall statement (cached per dimension) repeats that expression and predicate so
-- the planner uses it. A dimension of at most recall.vector_scope_max_dim() also gets
--   memories_embedding_<dim>_scope ON (scope_key, id) INCLUDE (embedding)
--   WHERE vector_dims(embedding) = dim AND scope_key IS NOT NULL
-- which the exact search of small callers reads by index only (sql/lanes/vector_exact.sql). The engine calls this before it writes the first embedding of a
-- dimension. It runs with the owner's rights, takes only an integer, and serializes on an
-- advisory lock. On a large table, create the index ahead of time: it blocks writes while it
-- builds.
CREATE OR REPLACE FUNCTION recall.ensure_vector_index(dim integer) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  idx  text;
  sidx text;
  vs   name;
BEGIN
  IF dim IS NULL OR dim < 1 OR dim > 2000 THEN
    RAISE EXCEPTION 'embedding dimension % is out of range: HNSW indexes vectors of 1 to 2000 dimensions', dim
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  idx := format('memories_embedding_%s_hnsw', dim);
  sidx := format('memories_embedding_%s_scope', dim);
  IF to_regclass(format('recall.%I', idx)) IS NOT NULL
     AND (dim > recall.vector_scope_max_dim() OR to_regclass(format('recall.%I', sidx)) IS NOT NULL) THEN
    RETURN idx;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('recall.ensure_vector_index'), dim);
  SELECT n.nspname INTO vs FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'vector';
  IF dim <= recall.vector_scope_max_dim() AND to_regclass(format('recall.%I', sidx)) IS NULL THEN
    EXECUTE format(
      'CREATE INDEX %I ON recall.memories (scope_key, id) INCLUDE (embedding)
         WHERE %I.vector_dims(embedding) = %s AND scope_key IS NOT NULL',
      sidx, vs, dim);
  END IF;
  IF to_regclass(format('recall.%I', idx)) IS NULL THEN
    EXECUTE format(
      'CREATE INDEX %I ON recall.memories USING hnsw ((embedding::%I.vector(%s)) %I.vector_cosine_ops)
         WHERE %I.vector_dims(embedding) = %s',
      idx, vs, dim, vs, vs, dim);
  END IF;
  RETURN idx;
END
$$;
REVOKE ALL ON FUNCTION recall.ensure_vector_index(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.ensure_vector_index(integer) TO recall_runtime;

-- Databases made before the scope indexes get them for each dimension they index.
DO $$
DECLARE
  d int;
BEGIN
  FOR d IN SELECT substring(indexname FROM '^memories_embedding_(\d+)_hnsw$')::int FROM pg_indexes
           WHERE schemaname = 'recall' AND indexname ~ '^memories_embedding_\d+_hnsw$' LOOP
    PERFORM recall.ensure_vector_index(d);
  END LOOP;
END
$$;
