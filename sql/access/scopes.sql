-- A memory moved to another scope set takes its access row along (memory_access rows carry
-- their memory's scopes, as every row does).
CREATE OR REPLACE FUNCTION recall.memories_scopes_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE recall.memory_access SET scopes = NEW.scopes WHERE memory_id = NEW.id;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER memories_scopes_changed AFTER UPDATE OF scopes ON recall.memories
  FOR EACH ROW WHEN (OLD.scopes IS DISTINCT FROM NEW.scopes)
  EXECUTE FUNCTION recall.memories_scopes_changed();
