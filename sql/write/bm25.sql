-- The lexical lanes' postings and per-scope-set statistics (recall.bm25_postings, bm25_terms,
-- bm25_corpus, bm25_docs: the baseline says what each holds), kept with the owner's rights:
-- on one server by statement-level triggers on recall.memories; on Citus, where a shard has
-- no transition tables, by a row trigger that notes each changed memory in recall.bm25_dirty
-- (co-located with it) and recall.bm25_flush(), which the writer calls before it commits.
--
-- bm25_rebuild(set, ids) makes the lexical data of the memories ids of scope set `set` what
-- their rows say now: it takes out what they contributed (postings, per-term counts, corpus
-- totals) and puts back what the memories that still exist contribute. Every statement on a
-- recall table names the scope set, so on Citus each is routed to the set's shard. A memory
-- with a place in its source counts its neighbours' words too: the memories of the same
-- source and scope set one place before and after it, and on a side where that one is short
-- (fewer than short_words lexemes: "ok!", "haha yes", a message of a turn sent in pieces),
-- the one two places away as well, so a message is read with about a turn's words around it
-- as a turn is. A change of one memory rebuilds the memories up to two places from it
-- (bm25_touched). A posting's impact is BM25's term-frequency part
-- with fixed constants (k1 1.2, b 0.75, a reference length of 100 lexemes, neighbours' words
-- at 0.3): it only orders a term's postings so the lanes read the best few per scope set;
-- the lanes score their candidates exactly with the caller's settings and statistics. Keys
-- are locked and upserted in term order so concurrent writers lock in the same order.

-- bm25_terms_of: a memory's terms with their frequency in its own lexemes (tf) and in its
-- neighbours' (ntf). SQL without SET, so that bm25_rebuild's statement inlines it (its calls
-- are to pg_catalog, named so, whatever the caller's search_path). Dropped first: its first
-- form named its parameters otherwise, which CREATE OR REPLACE cannot change.
DROP FUNCTION IF EXISTS recall.bm25_terms_of(tsvector, tsvector[]);
CREATE FUNCTION recall.bm25_terms_of(lexemes tsvector, neighbours tsvector[])
RETURNS TABLE (term text, tf integer, ntf integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT x.term, pg_catalog.sum(x.own)::integer, pg_catalog.sum(x.nb)::integer
    FROM (SELECT l.lexeme AS term, pg_catalog.cardinality(l.positions) AS own, 0 AS nb
            FROM pg_catalog.unnest(lexemes) l
          UNION ALL
          SELECT l.lexeme, 0, pg_catalog.cardinality(l.positions)
            FROM pg_catalog.unnest(neighbours) AS n(lex), pg_catalog.unnest(n.lex) l) x
   GROUP BY x.term
$$;

-- bm25_impact: a posting's impact, BM25's term-frequency part of a frequency f in a text of
-- len lexemes with the fixed constants of the header (k1 1.2, b 0.75, reference length 100),
-- in numeric as it always was. Inlined like bm25_terms_of.
CREATE OR REPLACE FUNCTION recall.bm25_impact(f numeric, len numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT f / (f + 1.2 * (1 - 0.75 + 0.75 * len / 100.0))
$$;

DROP FUNCTION IF EXISTS recall.bm25_rebuild(bigint[]);
DROP FUNCTION IF EXISTS recall.bm25_touched(recall.memories[]);
CREATE OR REPLACE FUNCTION recall.bm25_rebuild(set text[], ids bigint[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  impact_nw CONSTANT numeric := 0.3;
  short_words CONSTANT integer := 7;
  terms text[];
  dfs bigint[];
  cdfs bigint[];
  have text[] := '{}';
  shrinks boolean;
  net record;
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  -- The work tables live as long as the session and are emptied at each commit (and here, for
  -- a second call in one transaction): made anew in each transaction, as they were, they cost
  -- catalog writes and a new plan of every statement that reads them, for every batch.
  CREATE TEMP TABLE IF NOT EXISTS bm25_delta (term text, df bigint, cdf bigint) ON COMMIT DELETE ROWS;
  CREATE TEMP TABLE IF NOT EXISTS bm25_docs_delta (docs bigint, total_len bigint,
    cdocs bigint, ctotal_len bigint, ctotal_nlen bigint) ON COMMIT DELETE ROWS;
  CREATE TEMP TABLE IF NOT EXISTS bm25_new (memory_id bigint, positioned boolean,
    doc_len integer, ndoc_len integer, lexemes tsvector, nlexemes tsvector[],
    passages tsvector[], pdoc_len smallint[]) ON COMMIT DELETE ROWS;
  CREATE TEMP TABLE IF NOT EXISTS bm25_ptf (memory_id bigint, term text, ptf smallint[]) ON COMMIT DELETE ROWS;
  CREATE TEMP TABLE IF NOT EXISTS bm25_rows (memory_id bigint, term text, tf integer, doc_len integer,
    ntf integer, ndoc_len integer, positioned boolean, impact real, ptf smallint[], pdoc_len smallint[]) ON COMMIT DELETE ROWS;
  -- They must be the tables this function made. The session's temporary schema is the
  -- caller's too: a table of one of these names that the caller made first would be
  -- written here with the owner's rights, and its triggers would run with them (the runtime
  -- role could run any statement as the owner). So each must be a plain table of this
  -- function's owner, with no trigger, rule or policy, which only the owner could add.
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_class c
              WHERE c.relnamespace = pg_catalog.pg_my_temp_schema()
                AND c.relname IN ('bm25_delta', 'bm25_docs_delta', 'bm25_new', 'bm25_ptf', 'bm25_rows')
                AND (c.relowner <> current_user::regrole OR c.relkind <> 'r'
                     OR c.relhastriggers OR c.relhasrules OR c.relrowsecurity)) THEN
    RAISE EXCEPTION 'recall: the lexical upkeep''s work tables are not its own'
      USING ERRCODE = 'insufficient_privilege',
            DETAIL = 'A temporary table named bm25_delta, bm25_docs_delta, bm25_new, bm25_ptf or bm25_rows was made in this session by another role.';
  END IF;
  DELETE FROM bm25_delta;
  DELETE FROM bm25_docs_delta;
  DELETE FROM bm25_new;
  DELETE FROM bm25_ptf;
  DELETE FROM bm25_rows;

  -- Out: what the memories contributed.
  INSERT INTO bm25_delta
  SELECT p.term, -count(*) FILTER (WHERE p.tf > 0), -count(*) FILTER (WHERE p.positioned)
    FROM recall.bm25_postings p WHERE p.scopes = set AND p.memory_id = ANY (ids) GROUP BY 1;
  DELETE FROM recall.bm25_postings p WHERE p.scopes = set AND p.memory_id = ANY (ids);
  INSERT INTO bm25_docs_delta
  SELECT -count(*), -coalesce(sum(d.doc_len), 0), -count(*) FILTER (WHERE d.positioned),
         -coalesce(sum(d.doc_len) FILTER (WHERE d.positioned), 0), -coalesce(sum(d.ndoc_len) FILTER (WHERE d.positioned), 0)
    FROM recall.bm25_docs d WHERE d.scopes = set AND d.memory_id = ANY (ids);
  DELETE FROM recall.bm25_docs d WHERE d.scopes = set AND d.memory_id = ANY (ids);

  -- In: what they contribute now, their own lexemes and their neighbours'.
  -- The batch is read by id and its neighbours by their source and place, whatever the
  -- statistics say of the scope set. Planned for a set they have not seen (a new tenant's first
  -- import, before any ANALYZE), the set is estimated at a handful of rows and read by its
  -- index: once a batch for the batch, once a memory for its neighbours, so an import's
  -- batches grew slower one after another (9 batches of 500 chat turns into a new set: the
  -- neighbours 0.46 s to 2.05 s each, against 0.03 s by place; TestLexicalUpkeepReadsByPlace).
  -- On one server the set is tested with IS NOT DISTINCT FROM, the same test on these NOT NULL
  -- columns, which no index answers (and a source's memories share its set: the foreign key
  -- holds the pair). On a distributed Citus schema every relation is named by `= $1` for the
  -- statement to be routed to the set's shard.
  EXECUTE format($q$
  INSERT INTO bm25_new
  SELECT m.id, m.position IS NOT NULL, m.doc_len,
         coalesce(n.len, 0), m.lexemes, coalesce(n.lexemes, '{}'), p.lexemes, p.lens
    FROM recall.memories m
    -- Each passage read as the memory is (recall.doc_lexemes), with its source's title.
    LEFT JOIN LATERAL (
      SELECT array_agg(v.lexemes ORDER BY b.ord) AS lexemes,
             array_agg(least(recall.doc_length(v.lexemes), 32767)::smallint ORDER BY b.ord) AS lens
        FROM (SELECT s.title FROM recall.sources s WHERE s.id = m.source_id AND s.scopes %1$s $1) t
       RIGHT JOIN unnest(m.passages) WITH ORDINALITY AS b(r, ord) ON true
       CROSS JOIN LATERAL (SELECT recall.doc_lexemes(t.title, substr(m.text, lower(b.r) + 1, upper(b.r) - lower(b.r))) AS lexemes) v
    ) p ON cardinality(m.passages) > 0
    LEFT JOIN LATERAL (
      SELECT sum(x.doc_len)::int AS len, array_agg(x.lexemes) AS lexemes
        FROM recall.memories x
       WHERE m.position IS NOT NULL AND x.scopes %1$s $1 AND x.source_id = m.source_id
         AND x.position = ANY (ARRAY[m.position - 2, m.position - 1, m.position + 1, m.position + 2])
         AND (x.position IN (m.position - 1, m.position + 1) OR EXISTS (
                SELECT 1 FROM recall.memories y
                 WHERE y.scopes %1$s $1 AND y.source_id = m.source_id
                   AND y.position = (m.position + x.position) / 2 AND y.doc_len < $3))
    ) n ON true
   WHERE m.scopes %1$s $1 AND m.id = ANY ($2)
  $q$, recall.set_test()) USING set, ids, short_words;
  INSERT INTO recall.bm25_docs (memory_id, scopes, doc_len, ndoc_len, positioned)
  SELECT b.memory_id, set, b.doc_len, b.ndoc_len, b.positioned FROM bm25_new b;
  INSERT INTO bm25_docs_delta
  SELECT count(*), coalesce(sum(b.doc_len), 0), count(*) FILTER (WHERE b.positioned),
         coalesce(sum(b.doc_len) FILTER (WHERE b.positioned), 0), coalesce(sum(b.ndoc_len) FILTER (WHERE b.positioned), 0)
    FROM bm25_new b;
  -- A term's frequency in each passage of a memory with passages, 0 where it is absent.
  INSERT INTO bm25_ptf
  WITH e AS (SELECT b.memory_id, x.ord, l.lexeme AS term, cardinality(l.positions) AS tf
               FROM bm25_new b, unnest(b.passages) WITH ORDINALITY AS x(lex, ord), unnest(x.lex) l),
       k AS (SELECT DISTINCT e.memory_id, e.term FROM e),
       n AS (SELECT b.memory_id, g.ord FROM bm25_new b, generate_series(1, cardinality(b.passages)) AS g(ord))
  SELECT k.memory_id, k.term, array_agg(coalesce(e.tf, 0)::smallint ORDER BY n.ord)
    FROM k
    JOIN n ON n.memory_id = k.memory_id
    LEFT JOIN e ON e.memory_id = k.memory_id AND e.term = k.term AND e.ord = n.ord
   GROUP BY 1, 2;
  -- Each memory's terms, own and its neighbours', summed per memory; the impact of a memory
  -- with passages is its best, of the whole text and each passage. Memories without passages
  -- (most chat turns) are not joined to bm25_ptf: a join over the batch's terms was planned
  -- as a sort of every row by its text term (18,775 rows of 500 chat messages: 74 ms against
  -- 42; 70,069 of 495 long turns: 395 against 295).
  INSERT INTO bm25_rows
  SELECT b.memory_id, w.term, w.tf, b.doc_len, w.ntf, b.ndoc_len, b.positioned,
         recall.bm25_impact(w.tf + impact_nw * w.ntf, b.doc_len),
         NULL, NULL
    FROM bm25_new b
    CROSS JOIN LATERAL recall.bm25_terms_of(b.lexemes, b.nlexemes) w
   WHERE b.pdoc_len IS NULL
  UNION ALL
  SELECT b.memory_id, w.term, w.tf, b.doc_len, w.ntf, b.ndoc_len, b.positioned,
         greatest(recall.bm25_impact(w.tf + impact_nw * w.ntf, b.doc_len),
                  (SELECT max(recall.bm25_impact(u.tf, u.len)) FROM unnest(f.ptf, b.pdoc_len) AS u(tf, len) WHERE u.tf > 0)),
         f.ptf, CASE WHEN f.ptf IS NOT NULL THEN b.pdoc_len END
    FROM bm25_new b
    CROSS JOIN LATERAL recall.bm25_terms_of(b.lexemes, b.nlexemes) w
    LEFT JOIN bm25_ptf f ON f.memory_id = b.memory_id AND f.term = w.term
   WHERE b.pdoc_len IS NOT NULL;
  -- In the order of the lookup index (scope set, term, impact; bytewise is the order of
  -- C.UTF-8 and sorts faster), whose inserts are the cost of a batch: taken in that order they
  -- go to one leaf after another (19,781 postings into 764,527: 187-251 ms against 184-325).
  INSERT INTO recall.bm25_postings (memory_id, term, scopes, tf, doc_len, ntf, ndoc_len, positioned, impact, ptf, pdoc_len)
  SELECT r.memory_id, r.term, set, r.tf, r.doc_len, r.ntf, r.ndoc_len, r.positioned, r.impact, r.ptf, r.pdoc_len
    FROM bm25_rows r
   ORDER BY r.term COLLATE "C", r.impact DESC;
  -- What they add, from the rows written (read back from the postings, they cost an index
  -- probe and a heap visit each).
  INSERT INTO bm25_delta
  SELECT r.term, count(*) FILTER (WHERE r.tf > 0), count(*) FILTER (WHERE r.positioned)
    FROM bm25_rows r GROUP BY 1;

  -- Apply the deltas: lock the existing keys in order, then add to them and insert the new
  -- ones in order. The net deltas travel as arrays, so no statement on a recall table joins a
  -- temporary one. When nothing is taken away (a batch of new memories: their neighbours only
  -- gain words), one INSERT ... ON CONFLICT does both. Otherwise an UPDATE adds to the keys,
  -- as an INSERT checks its row before it finds the conflict and a net removal cannot go
  -- through ON CONFLICT, the new keys are inserted, and the keys that reached zero dropped.
  SELECT coalesce(array_agg(n.term ORDER BY n.term), '{}'), coalesce(array_agg(n.df ORDER BY n.term), '{}'),
         coalesce(array_agg(n.cdf ORDER BY n.term), '{}'), coalesce(bool_or(n.df < 0 OR n.cdf < 0), false)
    INTO terms, dfs, cdfs, shrinks
    FROM (SELECT x.term, sum(x.df)::bigint AS df, sum(x.cdf)::bigint AS cdf FROM bm25_delta x GROUP BY 1) n;
  PERFORM 1 FROM recall.bm25_terms t WHERE t.scopes = set AND t.term = ANY (terms) ORDER BY t.term FOR UPDATE;
  IF shrinks THEN
    UPDATE recall.bm25_terms t SET df = t.df + n.df, cdf = t.cdf + n.cdf
      FROM unnest(terms, dfs, cdfs) AS n(term, df, cdf)
     WHERE t.scopes = set AND t.term = n.term AND (n.df <> 0 OR n.cdf <> 0);
    SELECT coalesce(array_agg(x.term), '{}') INTO have FROM recall.bm25_terms x WHERE x.scopes = set AND x.term = ANY (terms);
  END IF;
  INSERT INTO recall.bm25_terms AS t (scopes, term, df, cdf)
  SELECT set, n.term, n.df, n.cdf FROM unnest(terms, dfs, cdfs) AS n(term, df, cdf)
   WHERE (n.df > 0 OR n.cdf > 0) AND NOT EXISTS (SELECT 1 FROM unnest(have) h(term) WHERE h.term = n.term)
   ORDER BY 2
  ON CONFLICT (scopes, term) DO UPDATE SET df = t.df + excluded.df, cdf = t.cdf + excluded.cdf;
  IF shrinks THEN
    DELETE FROM recall.bm25_terms t WHERE t.scopes = set AND t.term = ANY (terms) AND t.df = 0 AND t.cdf = 0;
  END IF;

  SELECT sum(x.docs) AS docs, sum(x.total_len) AS total_len, sum(x.cdocs) AS cdocs,
         sum(x.ctotal_len) AS ctotal_len, sum(x.ctotal_nlen) AS ctotal_nlen
    INTO net FROM bm25_docs_delta x;
  PERFORM 1 FROM recall.bm25_corpus c WHERE c.scopes = set FOR UPDATE;
  UPDATE recall.bm25_corpus c SET docs = c.docs + net.docs, total_len = c.total_len + net.total_len,
         cdocs = c.cdocs + net.cdocs, ctotal_len = c.ctotal_len + net.ctotal_len, ctotal_nlen = c.ctotal_nlen + net.ctotal_nlen
   WHERE c.scopes = set;
  IF NOT FOUND AND net.docs > 0 THEN
    INSERT INTO recall.bm25_corpus AS c (scopes, docs, total_len, cdocs, ctotal_len, ctotal_nlen)
    VALUES (set, net.docs, net.total_len, net.cdocs, net.ctotal_len, net.ctotal_nlen)
    ON CONFLICT (scopes) DO UPDATE SET docs = c.docs + excluded.docs, total_len = c.total_len + excluded.total_len,
      cdocs = c.cdocs + excluded.cdocs, ctotal_len = c.ctotal_len + excluded.ctotal_len,
      ctotal_nlen = c.ctotal_nlen + excluded.ctotal_nlen;
  END IF;
  DELETE FROM recall.bm25_corpus c WHERE c.scopes = set AND c.docs = 0;
END
$$;

-- The memories of scope set `set` whose lexical data a change of rows touches: the rows
-- (ids, with their sources and places), and the memories up to two places before and after
-- each in the same source, which may count the rows' words as their neighbours' (or reach
-- past a row whose length changed).
CREATE OR REPLACE FUNCTION recall.bm25_touched(set text[], ids bigint[], sources bigint[], places integer[]) RETURNS bigint[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  -- plpgsql, not sql: Citus cannot plan a SQL function's parameters in a distributed query.
  out bigint[];
BEGIN
  -- By source and place, whatever the statistics say of the set (recall.set_test), the
  -- places as one array the (source, place) index answers, not a list the planner may
  -- test row by row over the whole source.
  EXECUTE format($q$
  SELECT coalesce(array_agg(DISTINCT x.id ORDER BY x.id), '{}')
  FROM (
    SELECT r.id FROM unnest($2) r(id)
    UNION ALL
    SELECT n.id FROM unnest($3, $4) r(source_id, position)
    JOIN recall.memories n ON n.scopes %1$s $1 AND n.source_id = r.source_id
     AND n.position = ANY (ARRAY[r.position - 2, r.position - 1, r.position + 1, r.position + 2])
    WHERE r.position IS NOT NULL
  ) x
  $q$, recall.set_test()) INTO out USING set, ids, sources, places;
  RETURN out;
END
$$;

-- bm25_sync rebuilds what a statement's changed rows touch, one scope set at a time.
CREATE OR REPLACE FUNCTION recall.bm25_sync(rows recall.memories[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT x.scopes, array_agg(x.id) AS ids, array_agg(x.source_id) AS sources, array_agg(x.position) AS places
             FROM unnest(rows) x GROUP BY x.scopes ORDER BY x.scopes LOOP
    PERFORM recall.bm25_rebuild(r.scopes, recall.bm25_touched(r.scopes, r.ids, r.sources, r.places));
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_insert() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_sync((SELECT array_agg(n::recall.memories) FROM new_rows n));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION recall.memories_bm25_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM recall.bm25_sync((SELECT array_agg(o::recall.memories) FROM old_rows o));
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
   WHERE o.lexemes IS DISTINCT FROM n.lexemes OR o.passages IS DISTINCT FROM n.passages OR o.scopes IS DISTINCT FROM n.scopes
      OR o.source_id IS DISTINCT FROM n.source_id OR o.position IS DISTINCT FROM n.position;
  PERFORM recall.bm25_sync(touched);
  RETURN NULL;
END
$$;

-- On Citus (sql/citus/distribute.sql puts this row trigger in the statement triggers'
-- place): note a changed memory, before and after, for bm25_flush.
CREATE OR REPLACE FUNCTION recall.memories_bm25_dirty() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.lexemes IS NOT DISTINCT FROM NEW.lexemes AND OLD.scopes IS NOT DISTINCT FROM NEW.scopes
     AND OLD.source_id IS NOT DISTINCT FROM NEW.source_id AND OLD.position IS NOT DISTINCT FROM NEW.position THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO recall.bm25_dirty (scopes, memory_id, source_id, position) VALUES (OLD.scopes, OLD.id, OLD.source_id, OLD.position);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO recall.bm25_dirty (scopes, memory_id, source_id, position) VALUES (NEW.scopes, NEW.id, NEW.source_id, NEW.position);
  END IF;
  RETURN NULL;
END
$$;

-- bm25_flush rebuilds what the noted memories touch, one scope set at a time, and forgets
-- them. A no-op on one server, where nothing is noted. The engine calls it in a transaction
-- of its own after each writing transaction commits (scope.Flush), so two may run at once:
-- each set is rebuilt under a transaction lock of its own, and the notes another flush took
-- while this one waited are gone when the lock is granted, so nothing is rebuilt twice.
CREATE OR REPLACE FUNCTION recall.bm25_flush() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  set text[];
  r record;
BEGIN
  FOR set IN SELECT DISTINCT d.scopes FROM recall.bm25_dirty d ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('recall.bm25_flush ' || array_to_string(set, ','), 0));
    -- What is deleted is what is rebuilt: a note another writer commits meanwhile stays for
    -- the next flush.
    WITH gone AS (DELETE FROM recall.bm25_dirty d WHERE d.scopes = set RETURNING d.memory_id, d.source_id, d.position)
    SELECT array_agg(g.memory_id) AS ids, array_agg(g.source_id) AS sources, array_agg(g.position) AS places
      INTO r FROM gone g;
    CONTINUE WHEN r.ids IS NULL;
    PERFORM recall.bm25_rebuild(set, recall.bm25_touched(set, r.ids, r.sources, r.places));
  END LOOP;
END
$$;

-- Whether recall.memories is distributed (a Citus coordinator after migrations.Distribute):
-- pg_dist_partition exists only where Citus is installed, so it is read by EXECUTE. set_test
-- and the triggers below ask it.
CREATE OR REPLACE FUNCTION recall.memories_distributed() RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  distributed boolean := false;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1::regclass)'
      INTO distributed USING 'recall.memories';
  END IF;
  RETURN distributed;
END
$$;

-- How the lexical upkeep tests a row's scope set when it reads memories by id or by place:
-- "=" on a distributed Citus schema (a statement is routed to a set's shard by `scopes =` a
-- constant), else "IS NOT DISTINCT FROM", the same test on a NOT NULL column, which no index
-- answers: the planner then reads the rows by id or by source and place, not by the set's
-- index, which it prefers for a set the statistics have not seen yet (estimated at a handful
-- of rows, read whole). bm25_rebuild and bm25_touched splice it into their statements.
CREATE OR REPLACE FUNCTION recall.set_test() RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE WHEN recall.memories_distributed() THEN '=' ELSE 'IS NOT DISTINCT FROM' END
$$;

-- One server: the statement-level triggers. A Citus cluster whose memories are distributed:
-- the row trigger that notes changes for bm25_flush.
DO $$
BEGIN
  IF recall.memories_distributed() THEN
    DROP TRIGGER IF EXISTS memories_bm25_insert ON recall.memories;
    DROP TRIGGER IF EXISTS memories_bm25_delete ON recall.memories;
    DROP TRIGGER IF EXISTS memories_bm25_update ON recall.memories;
    CREATE OR REPLACE TRIGGER memories_bm25_dirty AFTER INSERT OR DELETE OR UPDATE ON recall.memories
      FOR EACH ROW EXECUTE FUNCTION recall.memories_bm25_dirty();
  ELSE
    DROP TRIGGER IF EXISTS memories_bm25_dirty ON recall.memories;
    CREATE OR REPLACE TRIGGER memories_bm25_insert AFTER INSERT ON recall.memories
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_insert();
    CREATE OR REPLACE TRIGGER memories_bm25_delete AFTER DELETE ON recall.memories
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_delete();
    CREATE OR REPLACE TRIGGER memories_bm25_update AFTER UPDATE ON recall.memories
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_update();
  END IF;
END
$$;
