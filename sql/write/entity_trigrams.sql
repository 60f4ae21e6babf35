-- recall.entity_trigrams (migration 00007) follows each entity's name and scopes, as
-- recall.title_trigrams follows titles (sql/write/title_trigrams.sql): an entity written or
-- renamed has its rows replaced; a deleted one loses them by the foreign key. The trigger runs
-- as the owner (the runtime role cannot read or write the table). Each entity has one more
-- row, of the empty trigram, by which the probe counts a caller's entities.
CREATE OR REPLACE FUNCTION recall.entities_name_trigrams() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  same boolean := TG_OP = 'UPDATE' AND OLD.name IS NOT DISTINCT FROM NEW.name AND OLD.scopes IS NOT DISTINCT FROM NEW.scopes;
BEGIN
  -- Before an update, the old rows go (their key names the old scope set, which must be
  -- free of them by the end of the statement); after, the new rows come.
  IF TG_WHEN = 'BEFORE' THEN
    IF NOT same THEN
      DELETE FROM recall.entity_trigrams WHERE entity_id = OLD.id AND scopes = OLD.scopes;
    END IF;
    RETURN NEW;
  END IF;
  IF same THEN
    RETURN NULL;
  END IF;
  INSERT INTO recall.entity_trigrams (scope, trigram, entity_id, scopes)
  SELECT DISTINCT sc, tg, NEW.id, NEW.scopes
  FROM unnest(NEW.scopes) AS sc CROSS JOIN unnest(array_prepend(''::text, show_trgm(lower(NEW.name)))) AS tg;
  RETURN NULL;
END
$$;
{{template "trgm_search_path" "recall.entities_name_trigrams()"}}
CREATE OR REPLACE TRIGGER entities_name_trigrams_old BEFORE UPDATE OF name, scopes ON recall.entities
  FOR EACH ROW EXECUTE FUNCTION recall.entities_name_trigrams();
CREATE OR REPLACE TRIGGER entities_name_trigrams AFTER INSERT OR UPDATE OF name, scopes ON recall.entities
  FOR EACH ROW EXECUTE FUNCTION recall.entities_name_trigrams();
