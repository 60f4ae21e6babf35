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
  NEW.lexemes := to_tsvector('english', coalesce(title, '') || E'\n' || NEW.text);
  -- A lexeme over 1,000 bytes (no word of any language; a pasted hash or base64 run) is
  -- left out: its posting's index entry, beside a scope set of up to 512 bytes stored twice,
  -- would pass the 2.7 kB a btree entry may hold and fail the whole batch.
  NEW.lexemes := ts_delete(NEW.lexemes, ARRAY(SELECT l.lexeme FROM unnest(NEW.lexemes) l WHERE octet_length(l.lexeme) > 1000));
  NEW.doc_len := coalesce((SELECT sum(cardinality(positions)) FROM unnest(NEW.lexemes)), 0);
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
