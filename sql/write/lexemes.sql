-- Passages: a memory of more than recall.passage_words() words is also read as passages of at
-- most that many words, cut at sentence ends (a word ending in . ! or ?, closing quotes and
-- brackets after it allowed, or a line break after it); a sentence longer than a passage is
-- cut every passage_words words. Sentences join a passage while they fit. The bounds are
-- character offsets, [start, end) from the first character of the passage's first word to
-- the last character of its last; words are runs of non-space characters. A memory of at
-- most passage_words words has none ('{}'): it is its own passage. Only the first
-- recall.passage_max() passages are kept (64, about 5,000 words): the lexical lanes score a
-- memory by the better of its whole text and its best passage (sql/write/bm25.sql), and the
-- pack may give the passage that matched instead of the whole memory (pack.Passages).
-- The reference in Go: passage_test.go.
CREATE OR REPLACE FUNCTION recall.passage_words() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 80 $$;
CREATE OR REPLACE FUNCTION recall.passage_max() RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 64 $$;

CREATE OR REPLACE FUNCTION recall.passage_bounds(body text) RETURNS int4range[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  most constant int := recall.passage_words();
  w record;
  at int := 0;          -- characters before the current word
  s_start int;          -- the open sentence: its first character, its end, its words
  s_end int;
  s_words int := 0;
  p_start int;          -- the open passage
  p_end int;
  p_words int := 0;
  total int := 0;
  out int4range[] := '{}';
BEGIN
  -- A text of at most `most` words is its own passage: its words counted in one call, not
  -- walked one by one (the walk's query alone took 1.4 s of a 29 s write of 20,314 chat messages).
  IF (SELECT count(*) FROM regexp_matches(body, '\S+', 'g')) <= most THEN
    RETURN '{}';
  END IF;
  FOR w IN SELECT m[1] AS space, m[2] AS word,
                  lead(m[1]) OVER (ORDER BY o) AS next_space,
                  o = count(*) OVER () AS last
             FROM regexp_matches(body, '(\s*)(\S+)', 'g') WITH ORDINALITY AS x(m, o)
            ORDER BY o LOOP
    at := at + length(w.space);
    IF s_words = 0 THEN
      s_start := at;
    END IF;
    at := at + length(w.word);
    s_end := at;
    s_words := s_words + 1;
    total := total + 1;
    IF w.last OR s_words = most OR w.word ~ '[.!?][]"''”’)]*$' OR strpos(w.next_space, E'\n') > 0 THEN
      -- The sentence is closed: it joins the open passage if it fits, or opens the next.
      IF p_words > 0 AND p_words + s_words > most THEN
        out := out || int4range(p_start, p_end);
        p_words := 0;
      END IF;
      IF p_words = 0 THEN
        p_start := s_start;
      END IF;
      p_end := s_end;
      p_words := p_words + s_words;
      s_words := 0;
    END IF;
  END LOOP;
  IF total <= most THEN
    RETURN '{}';
  END IF;
  out := out || int4range(p_start, p_end);
  RETURN out[1:recall.passage_max()];
END
$$;

-- recall.doc_lexemes is how a document is read for the BM25 lane, a memory or one of its
-- passages (sql/write/bm25.sql): the English lexemes of its source's title, a line break and
-- its text. A lexeme over 1,000 bytes (no word of any language; a pasted hash or base64 run)
-- is left out: its posting's index entry, beside a scope set of up to 512 bytes stored twice,
-- would pass the 2.7 kB a btree entry may hold and fail the whole batch. recall.doc_length
-- is its length in lexeme occurrences (stop words excluded, the same unit as tf).
CREATE OR REPLACE FUNCTION recall.doc_lexemes(title text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
  SELECT ts_delete(v, ARRAY(SELECT l.lexeme FROM unnest(v) l WHERE octet_length(l.lexeme) > 1000))
  FROM to_tsvector('english'::regconfig, coalesce(title, '') || E'\n' || body) AS v
$$;
CREATE OR REPLACE FUNCTION recall.doc_length(lexemes tsvector) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(sum(cardinality(l.positions)), 0)::int FROM unnest(lexemes) l
$$;

-- A memory's lexical data, for the BM25 lane: the English lexemes of its source's title and
-- its text, and its document length in lexeme occurrences (stop words excluded, the same unit
-- as tf). SECURITY DEFINER: derived data is kept by the owner, whatever the writer may see;
-- the write policies already require the source to be visible to the writer.
CREATE OR REPLACE FUNCTION recall.memories_lexemes() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  title text := '';
BEGIN
  IF NEW.source_id IS NOT NULL THEN
    SELECT s.title INTO title FROM recall.sources s WHERE s.id = NEW.source_id AND s.scopes = NEW.scopes;
  END IF;
  NEW.lexemes := recall.doc_lexemes(title, NEW.text);
  NEW.doc_len := recall.doc_length(NEW.lexemes);
  NEW.passages := recall.passage_bounds(NEW.text);
  RETURN NEW;
END
$$;
CREATE OR REPLACE TRIGGER memories_lexemes BEFORE INSERT OR UPDATE OF text, source_id ON recall.memories
  FOR EACH ROW EXECUTE FUNCTION recall.memories_lexemes();

-- A changed source title changes the lexemes of every memory of that source.
CREATE OR REPLACE FUNCTION recall.sources_title_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE recall.memories SET source_id = source_id WHERE source_id = NEW.id AND scopes = NEW.scopes;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER sources_title_changed AFTER UPDATE OF title ON recall.sources
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)
  EXECUTE FUNCTION recall.sources_title_changed();
