-- recall.title_trigrams (migration 00004) follows each source's title and scopes: a source
-- written or moved has its rows replaced; a deleted one loses them by the foreign key. The
-- trigger runs as the owner (the runtime role cannot read or write the table). Each source
-- has one more row, of the empty trigram, by which the probe counts a caller's titles.
CREATE OR REPLACE FUNCTION recall.sources_title_trigrams() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  same boolean := TG_OP = 'UPDATE' AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.scopes IS NOT DISTINCT FROM NEW.scopes;
BEGIN
  -- Before an update, the old rows go (their key names the old scope set, which must be
  -- free of them by the end of the statement); after, the new rows come.
  IF TG_WHEN = 'BEFORE' THEN
    IF NOT same THEN
      DELETE FROM recall.title_trigrams WHERE source_id = OLD.id AND scopes = OLD.scopes;
    END IF;
    RETURN NEW;
  END IF;
  IF same THEN
    RETURN NULL;
  END IF;
  INSERT INTO recall.title_trigrams (scope, trigram, source_id, scopes)
  SELECT DISTINCT sc, tg, NEW.id, NEW.scopes
  FROM unnest(NEW.scopes) AS sc CROSS JOIN unnest(array_prepend(''::text, show_trgm(lower(NEW.title)))) AS tg;
  RETURN NULL;
END
$$;
{{template "trgm_search_path" "recall.sources_title_trigrams()"}}
CREATE OR REPLACE TRIGGER sources_title_trigrams_old BEFORE UPDATE OF title, scopes ON recall.sources
  FOR EACH ROW EXECUTE FUNCTION recall.sources_title_trigrams();
CREATE OR REPLACE TRIGGER sources_title_trigrams AFTER INSERT OR UPDATE OF title, scopes ON recall.sources
  FOR EACH ROW EXECUTE FUNCTION recall.sources_title_trigrams();
