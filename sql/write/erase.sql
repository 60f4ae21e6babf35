-- recall.erase_scope_set(set, dry) removes everything of one scope set in the calling
-- transaction: every row of every table of schema recall that has a scopes column equal to
-- set (sources, memories with their summaries, entities, mentions, relations, access counts,
-- coverage, the BM25 statistics and postings, the trigram rows, and the scope's own row when
-- the set is one scope), and returns the receipt: each such table with the rows it held of
-- the set. A table added later with a scopes column is covered without an edit here (the
-- erase test lists the schema's tables). With dry it counts and deletes nothing.
--
-- SECURITY DEFINER, as the rest of the derived data's upkeep: the statistics are the
-- owner's to delete. The caller must write every scope of the set (recall.write_scopes(), as
-- row security's write rule); otherwise nothing happens and it raises 42501. The roots of
-- every write (memories, sources, entities) are locked against writers of any set until the
-- transaction ends, so no write slips in between the count and the last delete; recalls go
-- on and see the set whole until the commit, then not at all. Another set's statistics are
-- not touched: every row deleted has scopes = set.
CREATE OR REPLACE FUNCTION recall.erase_scope_set(set text[], dry boolean)
RETURNS TABLE (tbl text, n bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  tables text[];
  t text;
  left_over bigint;
BEGIN
  IF set IS NULL OR NOT recall.is_scope_set(set) THEN
    RAISE EXCEPTION 'recall.erase_scope_set: % is not a scope set (sorted, distinct scope names)', set
      USING ERRCODE = '22023';
  END IF;
  IF NOT set <@ coalesce(recall.write_scopes(), '{}') THEN
    RAISE EXCEPTION 'recall.erase_scope_set: the caller does not write every scope of %', set
      USING ERRCODE = '42501';
  END IF;
  IF NOT dry THEN
    LOCK TABLE recall.memories, recall.sources, recall.entities IN SHARE ROW EXCLUSIVE MODE;
  END IF;
  SELECT array_agg(c.relname::text ORDER BY c.relname) INTO tables
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace AND s.nspname = 'recall'
  JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = 'scopes' AND NOT a.attisdropped
  WHERE c.relkind IN ('r', 'p') AND a.atttypid = 'text[]'::regtype
    AND NOT c.relispartition;
  FOREACH t IN ARRAY tables LOOP
    tbl := t;
    EXECUTE format('SELECT count(*) FROM recall.%I WHERE scopes = $1', t) INTO n USING set;
    RETURN NEXT;
  END LOOP;
  IF dry THEN
    RETURN;
  END IF;
  -- The memories first, so that their triggers' upkeep runs, then whatever the set has left.
  DELETE FROM recall.memories m WHERE m.scopes = set;
  FOREACH t IN ARRAY tables LOOP
    EXECUTE format('DELETE FROM recall.%I WHERE scopes = $1', t) USING set;
  END LOOP;
  FOREACH t IN ARRAY tables LOOP
    EXECUTE format('SELECT count(*) FROM recall.%I WHERE scopes = $1', t) INTO left_over USING set;
    IF left_over > 0 THEN
      RAISE EXCEPTION 'recall.erase_scope_set: % rows of % left in recall.%', left_over, set, t;
    END IF;
  END LOOP;
END
$$;
REVOKE ALL ON FUNCTION recall.erase_scope_set(text[], boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recall.erase_scope_set(text[], boolean) TO recall_runtime;
