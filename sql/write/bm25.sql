-- BM25's postings and per-scope-set statistics (recall.bm25_postings, bm25_terms,
-- bm25_corpus: the baseline says why per scope set), kept by statement-level triggers on
-- recall.memories, with the owner's rights.
--
-- bm25_change adds (sign = 1) or removes (sign = -1) the lexical data of rows. A posting's
-- impact is BM25's term-frequency part with fixed constants (k1 1.2, b 0.75, a reference
-- length of 100 lexemes): it only orders a term's postings so the lane reads the best few per
-- scope set; the lane scores its candidates exactly with the caller's k1, b and statistics.
-- Keys are upserted in (scopes, term) order so concurrent writers lock in the same order.
CREATE OR REPLACE FUNCTION recall.bm25_change(rows recall.memories[], sign integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  impact_k1 CONSTANT numeric := 1.2;
  impact_b  CONSTANT numeric := 0.75;
  impact_dl CONSTANT numeric := 100.0;
BEGIN
  IF rows IS NULL OR cardinality(rows) = 0 THEN
    RETURN;
  END IF;
  IF sign > 0 THEN
    INSERT INTO recall.bm25_postings (memory_id, term, scopes, tf, doc_len, impact)
    SELECT r.id, l.lexeme, r.scopes, cardinality(l.positions), r.doc_len,
           cardinality(l.positions) / (cardinality(l.positions) + impact_k1 * (1 - impact_b + impact_b * r.doc_len / impact_dl))
      FROM unnest(rows) r, unnest(r.lexemes) l;

    INSERT INTO recall.bm25_terms AS t (scopes, term, df)
    SELECT r.scopes, l.lexeme, count(*)
      FROM unnest(rows) r, unnest(r.lexemes) l
     GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (scopes, term) DO UPDATE SET df = t.df + excluded.df;

    INSERT INTO recall.bm25_corpus AS c (scopes, docs, total_len)
    SELECT r.scopes, count(*), sum(r.doc_len)
      FROM unnest(rows) r
     GROUP BY 1 ORDER BY 1
    ON CONFLICT (scopes) DO UPDATE SET docs = c.docs + excluded.docs, total_len = c.total_len + excluded.total_len;
    RETURN;
  END IF;

  DELETE FROM recall.bm25_postings p USING unnest(rows) r WHERE p.memory_id = r.id;
  -- Removal: lock the keys in order first (UPDATE ... FROM has no defined order), then
  -- subtract, then drop keys that reached zero.
  CREATE TEMP TABLE IF NOT EXISTS bm25_delta (scopes text[], term text, n bigint) ON COMMIT DROP;
  TRUNCATE bm25_delta;
  INSERT INTO bm25_delta
  SELECT r.scopes, l.lexeme, count(*) FROM unnest(rows) r, unnest(r.lexemes) l GROUP BY 1, 2;
  PERFORM 1 FROM recall.bm25_terms t JOIN bm25_delta d ON t.scopes = d.scopes AND t.term = d.term
   ORDER BY t.scopes, t.term FOR UPDATE OF t;
  UPDATE recall.bm25_terms t SET df = t.df - d.n FROM bm25_delta d WHERE t.scopes = d.scopes AND t.term = d.term;
  DELETE FROM recall.bm25_terms t USING bm25_delta d WHERE t.scopes = d.scopes AND t.term = d.term AND t.df = 0;

  PERFORM 1 FROM recall.bm25_corpus c WHERE c.scopes IN (SELECT r.scopes FROM unnest(rows) r)
   ORDER BY c.scopes FOR UPDATE;
  UPDATE recall.bm25_corpus c SET docs = c.docs - d.n, total_len = c.total_len - d.len
    FROM (SELECT r.scopes, count(*) AS n, sum(r.doc_len) AS len FROM unnest(rows) r GROUP BY 1) d
   WHERE c.scopes = d.scopes;
  DELETE FROM recall.bm25_corpus c WHERE c.scopes IN (SELECT r.scopes FROM unnest(rows) r) AND c.docs = 0;
END
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_change((SELECT array_agg(n::recall.memories ORDER BY n.id) FROM new_rows n), 1);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_change((SELECT array_agg(o::recall.memories ORDER BY o.id) FROM old_rows o), -1);
  RETURN NULL;
END
$$;

-- Updates that change neither lexemes nor scopes (tags, metadata) cost one join of the
-- transition tables and nothing else.
CREATE OR REPLACE FUNCTION recall.memories_bm25_update() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  olds recall.memories[];
  news recall.memories[];
BEGIN
  SELECT array_agg(o::recall.memories ORDER BY o.id), array_agg(n::recall.memories ORDER BY n.id) INTO olds, news
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.lexemes IS DISTINCT FROM n.lexemes OR o.scopes IS DISTINCT FROM n.scopes;
  PERFORM recall.bm25_change(olds, -1);
  PERFORM recall.bm25_change(news, 1);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER memories_bm25_insert AFTER INSERT ON recall.memories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_insert();
CREATE OR REPLACE TRIGGER memories_bm25_delete AFTER DELETE ON recall.memories
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_delete();
CREATE OR REPLACE TRIGGER memories_bm25_update AFTER UPDATE ON recall.memories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_update();
