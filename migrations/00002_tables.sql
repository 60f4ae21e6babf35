-- The data. Every row carries the scope set it belongs to (scopes); the policies in the next
-- migration decide who sees and writes it. External ids are unique per scope set, never
-- globally: a global key would let one tenant probe another's ids through unique violations.

-- +goose Up
CREATE TABLE recall.scopes (
  name        text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.:/@-]{1,128}$'),
  scopes      text[] GENERATED ALWAYS AS (ARRAY[name]) STORED,
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE recall.scopes IS 'Registry of scope names; a scope is visible to the callers who read it.';

CREATE TABLE recall.sources (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 512),
  scopes      text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  title       text NOT NULL DEFAULT '',
  uri         text NOT NULL DEFAULT '',
  occurred_at timestamptz,
  metadata    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scopes, external_id)
);
COMMENT ON TABLE recall.sources IS 'Documents memories come from: title, uri, when it happened.';

CREATE TABLE recall.memories (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  external_id    text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 512),
  scopes         text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  source_id      bigint REFERENCES recall.sources (id) ON DELETE CASCADE,
  kind           text NOT NULL DEFAULT 'world'
                 CHECK (kind IN ('world', 'experience', 'observation', 'summary')),
  text           text NOT NULL CHECK (length(text) BETWEEN 1 AND 1000000),
  -- The embedding has no declared dimension so any model fits; each dimension in use gets
  -- its own partial HNSW index (recall.ensure_vector_index) and its own cached statement.
  embedding      vector,
  -- Lexical data for the BM25 lane: the English lexemes of the source title and the text,
  -- and the document length in lexeme occurrences. Kept by recall.memories_lexemes().
  lexemes        tsvector NOT NULL DEFAULT ''::tsvector,
  doc_len        integer NOT NULL DEFAULT 0 CHECK (doc_len >= 0),
  occurred_start timestamptz,
  occurred_end   timestamptz,
  mentioned_at   timestamptz,
  tags           text[] NOT NULL DEFAULT '{}' CHECK (array_position(tags, NULL) IS NULL),
  metadata       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  last_accessed  timestamptz,
  access_count   bigint NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scopes, external_id),
  CHECK (occurred_end IS NULL OR occurred_start IS NULL OR occurred_end >= occurred_start)
);
COMMENT ON TABLE recall.memories IS 'The recallable unit.';
CREATE INDEX memories_scopes_idx ON recall.memories USING gin (scopes);
CREATE INDEX memories_lexemes_idx ON recall.memories USING gin (lexemes);
CREATE INDEX memories_tags_idx ON recall.memories USING gin (tags);
CREATE INDEX memories_source_idx ON recall.memories (source_id);
CREATE INDEX memories_occurred_idx ON recall.memories (occurred_start);

-- +goose StatementBegin
-- SECURITY DEFINER: derived data is kept by the owner, whatever the writer may see. The write
-- policies already require the source to be visible to the writer.
CREATE FUNCTION recall.memories_lexemes() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  title text := '';
BEGIN
  IF NEW.source_id IS NOT NULL THEN
    SELECT s.title INTO title FROM recall.sources s WHERE s.id = NEW.source_id;
  END IF;
  NEW.lexemes := to_tsvector('english', coalesce(title, '') || E'\n' || NEW.text);
  -- Document length counts lexeme occurrences (stop words excluded), the same unit as tf.
  NEW.doc_len := coalesce((SELECT sum(cardinality(positions)) FROM unnest(NEW.lexemes)), 0);
  RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER memories_lexemes BEFORE INSERT OR UPDATE OF text, source_id ON recall.memories
  FOR EACH ROW EXECUTE FUNCTION recall.memories_lexemes();

-- A changed source title changes the lexemes of every memory of that source.
-- +goose StatementBegin
CREATE FUNCTION recall.sources_title_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE recall.memories SET source_id = source_id WHERE source_id = NEW.id;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER sources_title_changed AFTER UPDATE OF title ON recall.sources
  FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title)
  EXECUTE FUNCTION recall.sources_title_changed();

-- array_to_string is STABLE in general (element output may depend on settings) but not for
-- text[], so this wrapper may be IMMUTABLE and feed a generated column.
-- +goose StatementBegin
CREATE FUNCTION recall.entity_names(name text, aliases text[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT lower(name || ' ' || array_to_string(aliases, ' '))
$$;
-- +goose StatementEnd

CREATE TABLE recall.entities (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 512),
  scopes      text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 512),
  kind        text NOT NULL DEFAULT '',
  aliases     text[] NOT NULL DEFAULT '{}' CHECK (array_position(aliases, NULL) IS NULL),
  -- lower(name) and lower(aliases) in one string, for trigram matching of either.
  names       text GENERATED ALWAYS AS (recall.entity_names(name, aliases)) STORED,
  metadata    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (scopes, external_id)
);
COMMENT ON TABLE recall.entities IS 'People, places, things the memories mention.';
CREATE INDEX entities_name_trgm_idx ON recall.entities USING gin (lower(name) gin_trgm_ops);
CREATE INDEX entities_names_trgm_idx ON recall.entities USING gin (names gin_trgm_ops);
CREATE INDEX entities_lower_name_idx ON recall.entities (lower(name));
CREATE INDEX sources_title_trgm_idx ON recall.sources USING gin (lower(title) gin_trgm_ops);

CREATE TABLE recall.mentions (
  memory_id bigint NOT NULL REFERENCES recall.memories (id) ON DELETE CASCADE,
  entity_id bigint NOT NULL REFERENCES recall.entities (id) ON DELETE CASCADE,
  scopes    text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  PRIMARY KEY (memory_id, entity_id)
);
CREATE INDEX mentions_entity_idx ON recall.mentions (entity_id);

CREATE TABLE recall.relations (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scopes     text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  src_id     bigint NOT NULL REFERENCES recall.entities (id) ON DELETE CASCADE,
  dst_id     bigint NOT NULL REFERENCES recall.entities (id) ON DELETE CASCADE,
  predicate  text NOT NULL DEFAULT 'related_to' CHECK (length(predicate) BETWEEN 1 AND 256),
  weight     double precision NOT NULL DEFAULT 1 CHECK (weight > 0 AND weight < 'Infinity'),
  memory_id  bigint REFERENCES recall.memories (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (src_id <> dst_id)
);
-- One edge per (ends, predicate, evidence); NULL evidence counts as one value.
CREATE UNIQUE INDEX relations_edge_idx ON recall.relations (src_id, dst_id, predicate, coalesce(memory_id, 0));
CREATE INDEX relations_dst_idx ON recall.relations (dst_id);
CREATE INDEX relations_memory_idx ON recall.relations (memory_id);

CREATE TABLE recall.summary_coverage (
  summary_id bigint NOT NULL REFERENCES recall.memories (id) ON DELETE CASCADE,
  memory_id  bigint NOT NULL REFERENCES recall.memories (id) ON DELETE CASCADE,
  scopes     text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  PRIMARY KEY (summary_id, memory_id),
  CHECK (summary_id <> memory_id)
);
CREATE INDEX summary_coverage_memory_idx ON recall.summary_coverage (memory_id);

-- +goose Down
DROP TABLE recall.summary_coverage;
DROP TABLE recall.relations;
DROP TABLE recall.mentions;
DROP TABLE recall.entities;
DROP FUNCTION recall.entity_names(text, text[]);
DROP TABLE recall.memories;
DROP FUNCTION recall.memories_lexemes();
DROP TABLE recall.sources;
DROP FUNCTION recall.sources_title_changed();
DROP TABLE recall.scopes;
