-- recall.title_trigrams (migration 00004) follows each source's title and scopes: a source
-- written or moved has its rows replaced; a deleted one loses them by the foreign key. The
-- trigger runs as the owner (the runtime role cannot read or write the table). Each source
-- has one more row, of the empty trigram, by which the probe counts a caller's titles.
CREATE OR REPLACE FUNCTION recall.sources_title_trigrams() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.scopes IS NOT DISTINCT FROM NEW.scopes THEN
      RETURN NULL;
    END IF;
    DELETE FROM recall.title_trigrams WHERE source_id = NEW.id AND scopes = OLD.scopes;
  END IF;
  INSERT INTO recall.title_trigrams (scope, trigram, source_id, scopes)
  SELECT DISTINCT sc, tg, NEW.id, NEW.scopes
  FROM unnest(NEW.scopes) AS sc CROSS JOIN unnest(array_prepend(''::text, show_trgm(lower(NEW.title)))) AS tg;
  RETURN NULL;
END
$$;
{{template "trgm_search_path" "recall.sources_title_trigrams()"}}
CREATE OR REPLACE TRIGGER sources_title_trigrams AFTER INSERT OR UPDATE OF title, scopes ON recall.sources
  FOR EACH ROW EXECUTE FUNCTION recall.sources_title_trigrams();
