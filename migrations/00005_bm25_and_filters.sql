-- What the recall statement reads besides the base tables: BM25 postings and statistics kept
-- per scope set, exact entity-name keys, and the filter predicate every lane applies.
--
-- BM25 statistics must count only what the caller may see. Every memory belongs to exactly
-- one scope set, and a caller sees a memory exactly when its scope set overlaps the caller's
-- read scopes. So statistics kept per scope set (documents, total length, and per term the
-- document frequency) and summed over the scope sets the caller sees are exact: N, avgdl and
-- df over the caller's visible rows, under the same row-security rule as everything else.
--
-- Postings carry the memory's scope set and an impact (BM25's term-frequency part computed
-- with k1 = 1.2, b = 0.75 and a reference length of 100 lexemes). The impact only orders a
-- term's postings so a lane can read the best few per scope set; scores are computed exactly
-- with the caller's k1, b and statistics.

-- +goose Up
CREATE TABLE recall.bm25_postings (
  memory_id bigint NOT NULL,
  term      text NOT NULL,
  scopes    text[] NOT NULL,
  tf        integer NOT NULL CHECK (tf > 0),
  doc_len   integer NOT NULL CHECK (doc_len > 0),
  impact    real NOT NULL,
  PRIMARY KEY (memory_id, term)
);
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scopes, term, impact DESC)
  INCLUDE (memory_id, tf, doc_len);
CREATE INDEX bm25_postings_term_idx ON recall.bm25_postings (term);

CREATE TABLE recall.bm25_terms (
  scopes text[] NOT NULL,
  term   text NOT NULL,
  df     bigint NOT NULL CHECK (df >= 0),
  PRIMARY KEY (scopes, term)
);
CREATE INDEX bm25_terms_term_idx ON recall.bm25_terms (term) INCLUDE (scopes, df);

CREATE TABLE recall.bm25_corpus (
  scopes    text[] PRIMARY KEY,
  docs      bigint NOT NULL CHECK (docs >= 0),
  total_len bigint NOT NULL CHECK (total_len >= 0)
);

-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['bm25_postings', 'bm25_terms', 'bm25_corpus'] LOOP
    EXECUTE format('ALTER TABLE recall.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR SELECT TO recall_runtime
                      USING (scopes && (SELECT recall.read_scopes()))', t || '_read', t);
    -- Read only: triggers on recall.memories keep these tables, with the owner's rights.
    EXECUTE format('GRANT SELECT ON recall.%I TO recall_runtime', t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- bm25_change adds (sign = 1) or removes (sign = -1) the lexical data of rows. Keys are
-- upserted in (scopes, term) order so concurrent writers lock in the same order.
-- +goose StatementBegin
CREATE FUNCTION recall.bm25_change(rows recall.memories[], sign integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF rows IS NULL OR cardinality(rows) = 0 THEN
    RETURN;
  END IF;
  IF sign > 0 THEN
    INSERT INTO recall.bm25_postings (memory_id, term, scopes, tf, doc_len, impact)
    SELECT r.id, l.lexeme, r.scopes, cardinality(l.positions), r.doc_len,
           cardinality(l.positions) / (cardinality(l.positions) + 1.2 * (0.25 + 0.75 * r.doc_len / 100.0))
      FROM unnest(rows) r, unnest(r.lexemes) l;
  ELSE
    DELETE FROM recall.bm25_postings p USING unnest(rows) r WHERE p.memory_id = r.id;
  END IF;

  IF sign > 0 THEN
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
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall.memories_bm25_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_change((SELECT array_agg(n::recall.memories ORDER BY n.id) FROM new_rows n), 1);
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall.memories_bm25_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_change((SELECT array_agg(o::recall.memories ORDER BY o.id) FROM old_rows o), -1);
  RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Updates that change neither lexemes nor scopes (access recording, tags, metadata) cost one
-- join of the transition tables and nothing else.
-- +goose StatementBegin
CREATE FUNCTION recall.memories_bm25_update() RETURNS trigger
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
-- +goose StatementEnd

CREATE TRIGGER memories_bm25_insert AFTER INSERT ON recall.memories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_insert();
CREATE TRIGGER memories_bm25_delete AFTER DELETE ON recall.memories
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_delete();
CREATE TRIGGER memories_bm25_update AFTER UPDATE ON recall.memories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_update();

-- Exact entity matching: the lowered name and aliases as one array, GIN-indexed, so the graph
-- lane's seeds are one index probe (keys && the query's mentions).
-- +goose StatementBegin
CREATE FUNCTION recall.entity_keys(name text, aliases text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ARRAY(SELECT DISTINCT lower(x) FROM unnest(name || aliases) AS x)
$$;
-- +goose StatementEnd
ALTER TABLE recall.entities ADD COLUMN keys text[] GENERATED ALWAYS AS (recall.entity_keys(name, aliases)) STORED;
CREATE INDEX entities_keys_idx ON recall.entities USING gin (keys);
CREATE INDEX mentions_entity_memory_idx ON recall.mentions (entity_id, memory_id);

-- The filters of a recall, applied inside every lane. NULL means "no filter". Tag modes follow
-- the usual memory-API semantics: any / all include untagged memories, the _strict forms
-- exclude them. Inlined by the planner (a single SQL expression).
-- +goose StatementBegin
CREATE FUNCTION recall.passes(
  kind text, tags text[], metadata jsonb, occurred timestamptz,
  f_kinds text[], f_tags text[], f_tags_mode text, f_metadata jsonb, f_from timestamptz, f_to timestamptz
) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (f_kinds IS NULL OR kind = ANY (f_kinds))
     AND (f_metadata IS NULL OR metadata @> f_metadata)
     AND (f_from IS NULL OR occurred >= f_from)
     AND (f_to IS NULL OR occurred < f_to)
     AND (f_tags IS NULL OR CASE f_tags_mode
           WHEN 'any'        THEN cardinality(tags) = 0 OR tags && f_tags
           WHEN 'any_strict' THEN tags && f_tags
           WHEN 'all'        THEN cardinality(tags) = 0 OR tags @> f_tags
           WHEN 'all_strict' THEN cardinality(tags) > 0 AND tags @> f_tags
         END)
$$;
-- +goose StatementEnd
GRANT EXECUTE ON FUNCTION recall.passes(text, text[], jsonb, timestamptz, text[], text[], text, jsonb, timestamptz, timestamptz) TO recall_runtime;

-- +goose Down
DROP FUNCTION recall.passes(text, text[], jsonb, timestamptz, text[], text[], text, jsonb, timestamptz, timestamptz);
DROP INDEX recall.mentions_entity_memory_idx;
ALTER TABLE recall.entities DROP COLUMN keys;
DROP FUNCTION recall.entity_keys(text, text[]);
DROP TRIGGER memories_bm25_update ON recall.memories;
DROP TRIGGER memories_bm25_delete ON recall.memories;
DROP TRIGGER memories_bm25_insert ON recall.memories;
DROP FUNCTION recall.memories_bm25_update();
DROP FUNCTION recall.memories_bm25_delete();
DROP FUNCTION recall.memories_bm25_insert();
DROP FUNCTION recall.bm25_change(recall.memories[], integer);
DROP TABLE recall.bm25_corpus;
DROP TABLE recall.bm25_terms;
DROP TABLE recall.bm25_postings;
