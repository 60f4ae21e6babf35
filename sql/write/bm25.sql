-- The lexical lanes' postings and per-scope-set statistics (recall.bm25_postings, bm25_terms,
-- bm25_corpus, bm25_docs: the baseline says what each holds), kept by statement-level
-- triggers on recall.memories, with the owner's rights.
--
-- bm25_rebuild(ids) makes the lexical data of the memories ids what their rows say now: it
-- takes out what they contributed (postings, per-term counts, corpus totals) and puts back
-- what the memories that still exist contribute. A memory with a place in its source counts
-- its neighbours' words too (the memories of the same source and scope set one place before
-- and after it), so a change of one memory rebuilds its neighbours as well: the triggers pass
-- them. A posting's impact is BM25's term-frequency part with fixed constants (k1 1.2, b 0.75,
-- a reference length of 100 lexemes, neighbours' words at 0.3): it only orders a term's
-- postings so the lanes read the best few per scope set; the lanes score their candidates
-- exactly with the caller's settings and statistics. Keys are locked and upserted in
-- (scopes, term) order so concurrent writers lock in the same order.
CREATE OR REPLACE FUNCTION recall.bm25_rebuild(ids bigint[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  impact_k1 CONSTANT numeric := 1.2;
  impact_b  CONSTANT numeric := 0.75;
  impact_dl CONSTANT numeric := 100.0;
  impact_nw CONSTANT numeric := 0.3;
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  -- Out: what the memories contributed.
  CREATE TEMP TABLE IF NOT EXISTS bm25_delta (scopes text[], term text, df bigint, cdf bigint) ON COMMIT DROP;
  CREATE TEMP TABLE IF NOT EXISTS bm25_docs_delta (scopes text[], docs bigint, total_len bigint,
    cdocs bigint, ctotal_len bigint, ctotal_nlen bigint) ON COMMIT DROP;
  TRUNCATE bm25_delta, bm25_docs_delta;
  INSERT INTO bm25_delta
  SELECT p.scopes, p.term, -count(*) FILTER (WHERE p.tf > 0), -count(*) FILTER (WHERE p.positioned)
    FROM recall.bm25_postings p WHERE p.memory_id = ANY (ids) GROUP BY 1, 2;
  DELETE FROM recall.bm25_postings p WHERE p.memory_id = ANY (ids);
  INSERT INTO bm25_docs_delta
  SELECT d.scopes, -count(*), -sum(d.doc_len), -count(*) FILTER (WHERE d.positioned),
         -coalesce(sum(d.doc_len) FILTER (WHERE d.positioned), 0), -coalesce(sum(d.ndoc_len) FILTER (WHERE d.positioned), 0)
    FROM recall.bm25_docs d WHERE d.memory_id = ANY (ids) GROUP BY 1;
  DELETE FROM recall.bm25_docs d WHERE d.memory_id = ANY (ids);

  -- In: what they contribute now, their own lexemes and their neighbours'.
  CREATE TEMP TABLE IF NOT EXISTS bm25_new (memory_id bigint, scopes text[], positioned boolean,
    doc_len integer, ndoc_len integer, lexemes tsvector, nlexemes tsvector[]) ON COMMIT DROP;
  TRUNCATE bm25_new;
  INSERT INTO bm25_new
  SELECT m.id, m.scopes, m.position IS NOT NULL, m.doc_len,
         coalesce(n.len, 0), m.lexemes, coalesce(n.lexemes, '{}')
    FROM recall.memories m
    LEFT JOIN LATERAL (
      SELECT sum(x.doc_len)::int AS len, array_agg(x.lexemes) AS lexemes
        FROM recall.memories x
       WHERE m.position IS NOT NULL AND x.source_id = m.source_id AND x.scopes = m.scopes
         AND x.position IN (m.position - 1, m.position + 1)
    ) n ON true
   WHERE m.id = ANY (ids);
  INSERT INTO recall.bm25_docs (memory_id, scopes, doc_len, ndoc_len, positioned)
  SELECT b.memory_id, b.scopes, b.doc_len, b.ndoc_len, b.positioned FROM bm25_new b;
  INSERT INTO bm25_docs_delta
  SELECT b.scopes, count(*), sum(b.doc_len), count(*) FILTER (WHERE b.positioned),
         coalesce(sum(b.doc_len) FILTER (WHERE b.positioned), 0), coalesce(sum(b.ndoc_len) FILTER (WHERE b.positioned), 0)
    FROM bm25_new b GROUP BY 1;
  INSERT INTO recall.bm25_postings (memory_id, term, scopes, tf, doc_len, ntf, ndoc_len, positioned, impact)
  SELECT t.memory_id, t.term, t.scopes, t.tf, t.doc_len, t.ntf, t.ndoc_len, t.positioned,
         (t.tf + impact_nw * t.ntf) / (t.tf + impact_nw * t.ntf + impact_k1 * (1 - impact_b + impact_b * t.doc_len / impact_dl))
    FROM (
      SELECT b.memory_id, w.term, b.scopes, b.doc_len, b.ndoc_len, b.positioned,
             sum(w.own)::int AS tf, sum(w.nb)::int AS ntf
        FROM bm25_new b
        CROSS JOIN LATERAL (
          SELECT l.lexeme AS term, cardinality(l.positions) AS own, 0 AS nb FROM unnest(b.lexemes) l
          UNION ALL
          SELECT l.lexeme, 0, cardinality(l.positions) FROM unnest(b.nlexemes) AS x(lex), unnest(x.lex) l
        ) w
       GROUP BY 1, 2, 3, 4, 5, 6
    ) t;
  INSERT INTO bm25_delta
  SELECT p.scopes, p.term, count(*) FILTER (WHERE p.tf > 0), count(*) FILTER (WHERE p.positioned)
    FROM recall.bm25_postings p WHERE p.memory_id = ANY (ids) GROUP BY 1, 2;

  -- Apply the deltas: lock the existing keys in order, add to them, insert the new ones (an
  -- INSERT checks its row before it finds the conflict, so a net removal cannot go through
  -- ON CONFLICT), then drop the keys that reached zero.
  CREATE TEMP TABLE IF NOT EXISTS bm25_net (scopes text[], term text, df bigint, cdf bigint) ON COMMIT DROP;
  TRUNCATE bm25_net;
  INSERT INTO bm25_net SELECT d.scopes, d.term, sum(d.df), sum(d.cdf) FROM bm25_delta d GROUP BY 1, 2;
  PERFORM 1 FROM recall.bm25_terms t JOIN bm25_net d ON t.scopes = d.scopes AND t.term = d.term
   ORDER BY t.scopes, t.term FOR UPDATE OF t;
  UPDATE recall.bm25_terms t SET df = t.df + d.df, cdf = t.cdf + d.cdf
    FROM bm25_net d WHERE t.scopes = d.scopes AND t.term = d.term AND (d.df <> 0 OR d.cdf <> 0);
  INSERT INTO recall.bm25_terms AS t (scopes, term, df, cdf)
  SELECT d.scopes, d.term, d.df, d.cdf FROM bm25_net d
   WHERE (d.df > 0 OR d.cdf > 0)
     AND NOT EXISTS (SELECT 1 FROM recall.bm25_terms x WHERE x.scopes = d.scopes AND x.term = d.term)
   ORDER BY 1, 2
  ON CONFLICT (scopes, term) DO UPDATE SET df = t.df + excluded.df, cdf = t.cdf + excluded.cdf;
  DELETE FROM recall.bm25_terms t USING bm25_net d
   WHERE t.scopes = d.scopes AND t.term = d.term AND t.df = 0 AND t.cdf = 0;

  CREATE TEMP TABLE IF NOT EXISTS bm25_corpus_net (scopes text[], docs bigint, total_len bigint,
    cdocs bigint, ctotal_len bigint, ctotal_nlen bigint) ON COMMIT DROP;
  TRUNCATE bm25_corpus_net;
  INSERT INTO bm25_corpus_net
  SELECT d.scopes, sum(d.docs), sum(d.total_len), sum(d.cdocs), sum(d.ctotal_len), sum(d.ctotal_nlen)
    FROM bm25_docs_delta d GROUP BY 1;
  PERFORM 1 FROM recall.bm25_corpus c WHERE c.scopes IN (SELECT scopes FROM bm25_corpus_net)
   ORDER BY c.scopes FOR UPDATE;
  UPDATE recall.bm25_corpus c SET docs = c.docs + d.docs, total_len = c.total_len + d.total_len,
         cdocs = c.cdocs + d.cdocs, ctotal_len = c.ctotal_len + d.ctotal_len, ctotal_nlen = c.ctotal_nlen + d.ctotal_nlen
    FROM bm25_corpus_net d WHERE c.scopes = d.scopes;
  INSERT INTO recall.bm25_corpus AS c (scopes, docs, total_len, cdocs, ctotal_len, ctotal_nlen)
  SELECT d.scopes, d.docs, d.total_len, d.cdocs, d.ctotal_len, d.ctotal_nlen FROM bm25_corpus_net d
   WHERE d.docs > 0 AND NOT EXISTS (SELECT 1 FROM recall.bm25_corpus x WHERE x.scopes = d.scopes)
   ORDER BY 1
  ON CONFLICT (scopes) DO UPDATE SET docs = c.docs + excluded.docs, total_len = c.total_len + excluded.total_len,
    cdocs = c.cdocs + excluded.cdocs, ctotal_len = c.ctotal_len + excluded.ctotal_len,
    ctotal_nlen = c.ctotal_nlen + excluded.ctotal_nlen;
  DELETE FROM recall.bm25_corpus c WHERE c.scopes IN (SELECT scopes FROM bm25_corpus_net) AND c.docs = 0;
END
$$;

-- The memories whose lexical data a change of rows touches: the rows, and the memories one
-- place before and after each (same source and scope set), which count the rows' words as
-- their neighbours'.
CREATE OR REPLACE FUNCTION recall.bm25_touched(rows recall.memories[]) RETURNS bigint[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(array_agg(DISTINCT x.id ORDER BY x.id), '{}')
  FROM (
    SELECT r.id FROM unnest(rows) r
    UNION ALL
    SELECT n.id FROM unnest(rows) r
    JOIN recall.memories n ON n.source_id = r.source_id AND n.scopes = r.scopes
     AND n.position IN (r.position - 1, r.position + 1)
    WHERE r.position IS NOT NULL
  ) x
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_rebuild(recall.bm25_touched((SELECT array_agg(n::recall.memories) FROM new_rows n)));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_rebuild(recall.bm25_touched((SELECT array_agg(o::recall.memories) FROM old_rows o)));
  RETURN NULL;
END
$$;

-- Updates that change neither lexemes, scopes nor place (tags, metadata) cost one join of the
-- transition tables and nothing else.
CREATE OR REPLACE FUNCTION recall.memories_bm25_update() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  touched recall.memories[];
BEGIN
  SELECT array_agg(x.r) INTO touched
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   CROSS JOIN LATERAL (VALUES (o::recall.memories), (n::recall.memories)) AS x(r)
   WHERE o.lexemes IS DISTINCT FROM n.lexemes OR o.scopes IS DISTINCT FROM n.scopes
      OR o.source_id IS DISTINCT FROM n.source_id OR o.position IS DISTINCT FROM n.position;
  PERFORM recall.bm25_rebuild(recall.bm25_touched(touched));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER memories_bm25_insert AFTER INSERT ON recall.memories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_insert();
CREATE OR REPLACE TRIGGER memories_bm25_delete AFTER DELETE ON recall.memories
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_delete();
CREATE OR REPLACE TRIGGER memories_bm25_update AFTER UPDATE ON recall.memories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_update();
