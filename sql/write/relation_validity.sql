-- A relation holds while its evidence memory holds (migration 00012): these triggers keep
-- relations.valid_from / valid_until equal to the evidence's window, its valid_from and the
-- earliest of its valid_until and (while superseded) its superseded_at. SECURITY DEFINER:
-- derived data is kept by the owner, as the lexemes are; both rows are of one scope set (the
-- relation's key holds its evidence's scopes), and the row being written is the writer's.

-- A relation written, or given another evidence, takes the evidence's window.
CREATE OR REPLACE FUNCTION recall.relations_evidence_window() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  NEW.valid_from := NULL;
  NEW.valid_until := NULL;
  IF NEW.memory_id IS NOT NULL THEN
    SELECT m.valid_from, least(m.valid_until, CASE WHEN m.superseded_by IS NOT NULL THEN m.superseded_at END)
      INTO NEW.valid_from, NEW.valid_until
    FROM recall.memories m WHERE m.id = NEW.memory_id AND m.scopes = NEW.scopes;
  END IF;
  RETURN NEW;
END
$$;
CREATE OR REPLACE TRIGGER relations_evidence_window BEFORE INSERT OR UPDATE OF memory_id, scopes ON recall.relations
  FOR EACH ROW EXECUTE FUNCTION recall.relations_evidence_window();

-- A memory whose window changes (valid_from, valid_until, superseded or released) passes it
-- to the relations it is the evidence of.
CREATE OR REPLACE FUNCTION recall.memories_relations_follow() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE recall.relations r
  SET valid_from = NEW.valid_from,
      valid_until = least(NEW.valid_until, CASE WHEN NEW.superseded_by IS NOT NULL THEN NEW.superseded_at END)
  WHERE r.memory_id = NEW.id AND r.scopes = NEW.scopes;
  RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER memories_relations_follow AFTER UPDATE OF valid_from, valid_until, superseded_by, superseded_at ON recall.memories
  FOR EACH ROW WHEN (OLD.valid_from IS DISTINCT FROM NEW.valid_from OR OLD.valid_until IS DISTINCT FROM NEW.valid_until
                     OR OLD.superseded_by IS DISTINCT FROM NEW.superseded_by OR OLD.superseded_at IS DISTINCT FROM NEW.superseded_at)
  EXECUTE FUNCTION recall.memories_relations_follow();
