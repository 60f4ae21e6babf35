-- Vector indexes for any embedding dimension. memories.embedding is an untyped vector, so one
-- table holds embeddings of any model. HNSW needs a fixed dimension, so each dimension in use
-- gets a partial expression index:
--   memories_embedding_<dim>_hnsw ON ((embedding::vector(dim)) vector_cosine_ops)
--   WHERE vector_dims(embedding) = dim
-- and the recall statement (cached per dimension) repeats that expression and predicate so
-- the planner uses it. The engine calls this before it writes the first embedding of a
-- dimension. It runs with the owner's rights, takes only an integer, and serializes on an
-- advisory lock. On a large table, create the index ahead of time: it blocks writes while it
-- builds.
CREATE OR REPLACE FUNCTION recall.ensure_vector_index(dim integer) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  idx text;
  vs  name;
BEGIN
  IF dim IS NULL OR dim < 1 OR dim > 2000 THEN
    RAISE EXCEPTION 'embedding dimension % is out of range: HNSW indexes vectors of 1 to 2000 dimensions', dim
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  idx := format('memories_embedding_%s_hnsw', dim);
  PERFORM pg_advisory_xact_lock(hashtext('recall.ensure_vector_index'), dim);
  IF to_regclass(format('recall.%I', idx)) IS NULL THEN
    SELECT n.nspname INTO vs FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'vector';
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
