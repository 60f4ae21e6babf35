-- The baseline: recall's schema, row-level security and indexes as of its first release.
--
-- What is here is structure: tables, the immutable helpers their columns, checks, indexes and
-- policies are built on, the policies and the grants. The functions the lanes and the write
-- path call, and the triggers that keep derived data, live in files under sql/ next to the
-- code that uses them, and are applied after the migrations by the repeatable step of
-- migrations.Up (see sql/functions.go). sql/schema.sql shows the resulting schema; a test keeps
-- it true. Once a release is tagged, this file never changes again: later changes are new
-- migrations. Why each access path looks the way it does, with the figures that decided it:
-- BENCHMARKS.md, "How the schema came to be".
--
-- Extensions: pg_trgm is a trusted extension; pgvector is not, so on a server where the
-- migrating role is not a superuser, a superuser runs
--   CREATE EXTENSION vector; CREATE EXTENSION pg_trgm;
-- in the database first (scripts/db.sh and the test harness do). They belong to the database
-- administrator: the Down step leaves them in place.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
  v text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    BEGIN
      CREATE EXTENSION vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE EXCEPTION 'extension "vector" is missing and % may not create it', current_user
        USING HINT = 'as a superuser, run CREATE EXTENSION vector in this database, then migrate again';
    END;
  END IF;
  SELECT extversion INTO v FROM pg_extension WHERE extname = 'vector';
  IF string_to_array(v, '.')::int[] < '{0,8,0}'::int[] THEN
    RAISE EXCEPTION 'pgvector % is installed; recall needs >= 0.8.0 (iterative index scans)', v;
  END IF;
  -- Asked only when missing: on Citus, CREATE EXTENSION IF NOT EXISTS of an existing extension
  -- still requires its ownership, which a superuser's extension denies the owner role.
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE EXTENSION pg_trgm;
  END IF;

  -- recall_runtime is the role the engine runs as. It is shared by every database on the
  -- server, so it is created only when missing and never dropped by a migration.
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_runtime') THEN
    CREATE ROLE recall_runtime NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'recall_runtime' AND (rolsuper OR rolbypassrls)) THEN
    RAISE EXCEPTION 'role recall_runtime is SUPERUSER or BYPASSRLS; row-level security would not apply to it';
  END IF;
END
$$;
-- +goose StatementEnd

CREATE SCHEMA recall;
GRANT USAGE ON SCHEMA recall TO recall_runtime;

-- The caller's scopes. The engine sets them with set_config(..., is_local => true) (SET LOCAL)
-- at the start of every transaction; outside such a transaction they are empty, so nothing is
-- visible and nothing is writable. A malformed value raises an error: policies fail closed.
-- +goose StatementBegin
CREATE FUNCTION recall.read_scopes() RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(current_setting('recall.read_scopes', true), ''), '{}')::text[]
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION recall.write_scopes() RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(nullif(current_setting('recall.write_scopes', true), ''), '{}')::text[]
$$;
-- +goose StatementEnd

-- A scope set is stored normalized: 1 to 64 names, each 1 to 128 characters of
-- [A-Za-z0-9_.:/@-], sorted, without duplicates. Normal form makes equal sets compare equal
-- (the unique keys below include the scope set).
-- +goose StatementBegin
CREATE FUNCTION recall.is_scope_set(s text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT cardinality(s) BETWEEN 1 AND 64
     AND array_ndims(s) = 1
     AND NOT EXISTS (SELECT 1 FROM unnest(s) AS x WHERE x IS NULL OR x !~ '^[A-Za-z0-9_.:/@-]{1,128}$')
     AND s = ARRAY(SELECT DISTINCT x COLLATE "C" FROM unnest(s) AS x ORDER BY 1)
$$;
-- +goose StatementEnd

-- A scope set's text key: its names joined by one space (a name has no space, and sets are
-- sorted and distinct, so the key is unique). = on text is leakproof and = on text[] is not:
-- under row security only leakproof conditions become index conditions, so lookups by scope
-- set go through this key.
CREATE FUNCTION recall.scope_key(scopes text[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN array_to_string(scopes, ' ');

-- An entity's lowered name and aliases, the keys exact mentions are matched against.
-- +goose StatementBegin
CREATE FUNCTION recall.entity_keys(name text, aliases text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ARRAY(SELECT DISTINCT lower(x) FROM unnest(name || aliases) AS x)
$$;
-- +goose StatementEnd

-- A title's key: lowered, every run of characters other than letters and digits made one
-- space. A query names a source when a word n-gram of the query's key is the title's key.
CREATE FUNCTION recall.title_key(title text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN btrim(regexp_replace(lower(title), '[^[:alnum:]]+', ' ', 'g'));

-- The filters of one recall, applied inside every lane (sql/lanes/filter.sql). A NULL field
-- filters nothing.
CREATE TYPE recall.filter AS (
  kinds     text[],
  tags      text[],
  tags_mode text,
  metadata  jsonb,
  from_time timestamptz,
  to_time   timestamptz
);

-- The data. Every row carries the scope set it belongs to (scopes); the policies below decide
-- who sees and writes it. External ids are unique per scope set, never globally: a global key
-- would let one tenant probe another's ids through unique violations.
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

-- A memory's embedding has no declared dimension, so any model fits; each dimension in use
-- gets its own partial HNSW index (recall.ensure_vector_index) and its own cached statement.
-- Embedding, text and lexemes stay in the row (MAIN storage, the largest tuple target): out of
-- line, every distance of the vector lane's exact branch was a TOAST read.
CREATE TABLE recall.memories (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  external_id    text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 512),
  scopes         text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  source_id      bigint REFERENCES recall.sources (id) ON DELETE CASCADE,
  kind           text NOT NULL DEFAULT 'world'
                 CHECK (kind IN ('world', 'experience', 'observation', 'summary')),
  text           text NOT NULL CHECK (length(text) BETWEEN 1 AND 1000000),
  embedding      vector,
  -- Lexical data for the BM25 lane: the English lexemes of the source title and the text,
  -- and the document length in lexeme occurrences (sql/write/lexemes.sql keeps them).
  lexemes        tsvector NOT NULL DEFAULT ''::tsvector,
  doc_len        integer NOT NULL DEFAULT 0 CHECK (doc_len >= 0),
  occurred_start timestamptz,
  occurred_end   timestamptz,
  mentioned_at   timestamptz,
  tags           text[] NOT NULL DEFAULT '{}' CHECK (array_position(tags, NULL) IS NULL),
  metadata       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  scope_key      text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED,
  -- A memory's place in its source (a conversation session's turn, a document's chunk),
  -- from 1: its neighbours are the memories of the same source and scope set one place
  -- before and after it. NULL: no place.
  position       integer CHECK (position > 0),
  -- Who said it, for a conversation turn ('' for none).
  speaker        text NOT NULL DEFAULT '' CHECK (length(speaker) <= 512),
  is_question    boolean GENERATED ALWAYS AS (strpos(text, '?') > 0) STORED,
  UNIQUE (scopes, external_id),
  -- The target of mentions' (memory_id, scopes) key.
  UNIQUE (id, scopes),
  CHECK (occurred_end IS NULL OR occurred_start IS NULL OR occurred_end >= occurred_start),
  CHECK (position IS NULL OR source_id IS NOT NULL)
) WITH (toast_tuple_target = 8160);
COMMENT ON TABLE recall.memories IS 'The recallable unit.';
ALTER TABLE recall.memories ALTER COLUMN embedding SET STORAGE MAIN;
-- Every lookup of memories by scope_key in the statement is a small one (the vector lane's
-- exact branch, the temporal walk's steps), but a generic plan prices it at the column's
-- average selectivity, which with few scope sets is most of the table. The statistics say
-- that a scope set holds about 1% of the rows, whatever ANALYZE counts.
ALTER TABLE recall.memories ALTER COLUMN scope_key SET (n_distinct = -0.01);
CREATE INDEX memories_tags_idx ON recall.memories USING gin (tags);
CREATE INDEX memories_source_idx ON recall.memories (source_id);
CREATE INDEX memories_occurred_idx ON recall.memories (occurred_start, id);
CREATE INDEX memories_occurred_end_idx ON recall.memories (occurred_end) WHERE occurred_end IS NOT NULL;
CREATE INDEX memories_scope_time_idx ON recall.memories (scope_key, occurred_start, id);
CREATE INDEX memories_source_position_idx ON recall.memories (source_id, position) WHERE position IS NOT NULL;

CREATE TABLE recall.entities (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  external_id text NOT NULL CHECK (length(external_id) BETWEEN 1 AND 512),
  scopes      text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 512),
  kind        text NOT NULL DEFAULT '',
  aliases     text[] NOT NULL DEFAULT '{}' CHECK (array_position(aliases, NULL) IS NULL),
  -- A person's first name or surname when no other person of the scope set has it, derived
  -- by the write path (sql/write/aliases.sql); blocked_aliases are those the writer removed.
  derived_aliases text[] NOT NULL DEFAULT '{}' CHECK (array_position(derived_aliases, NULL) IS NULL),
  blocked_aliases text[] NOT NULL DEFAULT '{}' CHECK (array_position(blocked_aliases, NULL) IS NULL),
  metadata    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  keys        text[] GENERATED ALWAYS AS (recall.entity_keys(name, aliases || derived_aliases)) STORED,
  UNIQUE (scopes, external_id)
);
COMMENT ON TABLE recall.entities IS 'People, places, things the memories mention.';
-- The GIN indexes that lanes probe keep no pending list: a probe scans all of it.
CREATE INDEX entities_keys_idx ON recall.entities USING gin (keys) WITH (fastupdate = off);
CREATE INDEX entities_name_trgm_idx ON recall.entities USING gin (lower(name) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX entities_lower_name_idx ON recall.entities (lower(name));

-- A mention carries its memory's scope set, enforced by the (memory_id, scopes) key, which
-- also carries a change of the memory's scopes to its mentions: a visible mention names a
-- visible memory, so the lanes read mentions without the memory. A speaker row says the
-- entity said the memory rather than that it names it: the lanes read only the others.
CREATE TABLE recall.mentions (
  memory_id bigint NOT NULL,
  entity_id bigint NOT NULL REFERENCES recall.entities (id) ON DELETE CASCADE,
  scopes    text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  speaker   boolean NOT NULL DEFAULT false,
  PRIMARY KEY (memory_id, entity_id) INCLUDE (scopes, speaker),
  CONSTRAINT mentions_memory_scopes_fkey FOREIGN KEY (memory_id, scopes)
    REFERENCES recall.memories (id, scopes) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX mentions_entity_memory_idx ON recall.mentions (entity_id, memory_id) INCLUDE (scopes, speaker);

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
-- One edge per (ends, predicate, evidence); NULL evidence counts as one value. The graph
-- walk's reads are index-only: the indexes carry what it reads and the scopes the policy
-- checks.
CREATE UNIQUE INDEX relations_edge_idx ON recall.relations (src_id, dst_id, predicate, coalesce(memory_id, 0));
CREATE INDEX relations_src_idx ON recall.relations (src_id) INCLUDE (dst_id, weight, scopes);
CREATE INDEX relations_dst_idx ON recall.relations (dst_id) INCLUDE (src_id, weight, scopes);
CREATE INDEX relations_memory_idx ON recall.relations (memory_id);

CREATE TABLE recall.summary_coverage (
  summary_id bigint NOT NULL REFERENCES recall.memories (id) ON DELETE CASCADE,
  memory_id  bigint NOT NULL REFERENCES recall.memories (id) ON DELETE CASCADE,
  scopes     text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  PRIMARY KEY (summary_id, memory_id),
  CHECK (summary_id <> memory_id)
);
CREATE INDEX summary_coverage_memory_idx ON recall.summary_coverage (memory_id);

-- When and how often each memory was packed into a recall. A narrow table of its own, so an
-- access is a HOT update of a 60-byte row, not a new version of a wide memory row and an entry
-- in each of its indexes. A memory without a row here was never recalled.
CREATE TABLE recall.memory_access (
  memory_id     bigint PRIMARY KEY REFERENCES recall.memories (id) ON DELETE CASCADE,
  scopes        text[] NOT NULL CHECK (recall.is_scope_set(scopes)),
  last_accessed timestamptz NOT NULL,
  access_count  bigint NOT NULL CHECK (access_count > 0)
) WITH (fillfactor = 70);
COMMENT ON TABLE recall.memory_access IS 'When and how often each memory was packed into a recall.';

-- The lexical lanes' postings and statistics (bm25 and context), kept per scope set by the
-- triggers of sql/write/bm25.sql. Every memory belongs to exactly one scope set, and a caller
-- sees a memory exactly when its scope set overlaps the caller's read scopes. So statistics
-- kept per scope set (documents, total length, and per term the document frequency) and
-- summed over the scope sets the caller sees are exact: N, avgdl and df over the caller's
-- visible rows. A posting's impact only orders a term's postings so the lanes read the best
-- few per scope set; scores are computed exactly with the caller's settings and statistics.
-- The indexes carry what the lanes read, so their reads are index-only.
--
-- A posting of a memory with a place in its source also counts the term in its neighbours
-- (ntf, and their length ndoc_len): the context lane scores a memory with its neighbours'
-- words at a lower weight. A neighbour has the memory's scope set, so no memory's words reach
-- a caller through another's. A posting with tf 0 exists only for such neighbour words.
CREATE TABLE recall.bm25_postings (
  memory_id  bigint NOT NULL,
  term       text NOT NULL,
  scopes     text[] NOT NULL,
  tf         integer NOT NULL CHECK (tf >= 0),
  doc_len    integer NOT NULL CHECK (doc_len >= 0),
  ntf        integer NOT NULL DEFAULT 0 CHECK (ntf >= 0),
  ndoc_len   integer NOT NULL DEFAULT 0 CHECK (ndoc_len >= 0),
  positioned boolean NOT NULL DEFAULT false,
  impact     real NOT NULL,
  scope_key  text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED,
  PRIMARY KEY (memory_id, term) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned, scopes),
  CHECK (tf > 0 OR ntf > 0)
);
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings (scope_key, term, impact DESC)
  INCLUDE (memory_id, scopes, tf, doc_len, ntf, ndoc_len, positioned);
CREATE INDEX bm25_postings_term_idx ON recall.bm25_postings (term);

-- df counts the memories whose own text has the term; cdf the memories with a place whose
-- text or neighbours' text has it (the context lane's).
CREATE TABLE recall.bm25_terms (
  scopes text[] NOT NULL,
  term   text NOT NULL,
  df     bigint NOT NULL CHECK (df >= 0),
  cdf    bigint NOT NULL DEFAULT 0 CHECK (cdf >= 0),
  PRIMARY KEY (scopes, term)
);
CREATE INDEX bm25_terms_term_idx ON recall.bm25_terms (term) INCLUDE (scopes, df, cdf);

-- docs and total_len over all memories; cdocs, ctotal_len and ctotal_nlen over the memories
-- with a place (their own and their neighbours' lengths).
CREATE TABLE recall.bm25_corpus (
  scopes      text[] PRIMARY KEY,
  docs        bigint NOT NULL CHECK (docs >= 0),
  total_len   bigint NOT NULL CHECK (total_len >= 0),
  cdocs       bigint NOT NULL DEFAULT 0 CHECK (cdocs >= 0),
  ctotal_len  bigint NOT NULL DEFAULT 0 CHECK (ctotal_len >= 0),
  ctotal_nlen bigint NOT NULL DEFAULT 0 CHECK (ctotal_nlen >= 0)
);

-- What each memory adds to bm25_corpus, so a change can take it back out. Only the triggers
-- read it.
CREATE TABLE recall.bm25_docs (
  memory_id  bigint PRIMARY KEY,
  scopes     text[] NOT NULL,
  doc_len    integer NOT NULL,
  ndoc_len   integer NOT NULL,
  positioned boolean NOT NULL
);

-- What the repeatable step of migrations.Up applied: each function file under sql/ and the
-- SHA-256 of its text. The runtime role cannot read it.
CREATE TABLE recall.function_files (
  file       text PRIMARY KEY,
  sha256     text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Row-level security: the product's core guarantee. The rule, the same on every table:
--   read:  a row is visible when its scope set shares at least one scope with the caller's
--          read scopes (scopes && read_scopes). A row in several scopes is shared with each.
--   write: a row may be inserted, updated (before and after) or deleted when every one of its
--          scopes is among the caller's write scopes (scopes <@ write_scopes): nobody can put a
--          row into, or change a row shared with, a scope they cannot write.
--   links: a row that points at other rows (a memory's source, a mention's memory and entity,
--          a relation's entities and evidence, a summary's covered memories, an access row's
--          memory) may only be written when the caller can see what it points at. Foreign-key
--          checks bypass row security; without this, a writer could probe other scopes' ids.
-- With no scopes set (outside the engine's transactions) nothing is visible or writable.
-- recall_runtime is NOBYPASSRLS and owns nothing, so the policies always apply to it. The
-- BM25 tables are read only: the triggers keep them, with the owner's rights.
-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['scopes', 'sources', 'memories', 'entities', 'mentions', 'relations',
                           'summary_coverage', 'memory_access', 'bm25_postings', 'bm25_terms', 'bm25_corpus'] LOOP
    EXECUTE format('ALTER TABLE recall.%I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR SELECT TO recall_runtime
                      USING (scopes && (SELECT recall.read_scopes()))', t || '_read', t);
    IF t LIKE 'bm25\_%' THEN
      EXECUTE format('GRANT SELECT ON recall.%I TO recall_runtime', t);
      CONTINUE;
    END IF;
    IF t <> 'memory_access' THEN
      EXECUTE format('CREATE POLICY %I ON recall.%I FOR INSERT TO recall_runtime
                        WITH CHECK (scopes <@ (SELECT recall.write_scopes()))', t || '_insert', t);
    END IF;
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR UPDATE TO recall_runtime
                      USING (scopes <@ (SELECT recall.write_scopes()))
                      WITH CHECK (scopes <@ (SELECT recall.write_scopes()))', t || '_update', t);
    EXECUTE format('CREATE POLICY %I ON recall.%I FOR DELETE TO recall_runtime
                      USING (scopes <@ (SELECT recall.write_scopes()))', t || '_delete', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON recall.%I TO recall_runtime', t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- An access row has its memory's scope set, and the memory must be visible.
CREATE POLICY memory_access_insert ON recall.memory_access FOR INSERT TO recall_runtime
  WITH CHECK (scopes <@ (SELECT recall.write_scopes())
              AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id AND m.scopes = memory_access.scopes));

-- Links must point at rows the writer can see. The subqueries run under the caller's own
-- policies, so an invisible row and a missing row look the same: the write is refused.
CREATE POLICY memories_source_visible ON recall.memories AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (source_id IS NULL OR EXISTS (SELECT 1 FROM recall.sources s WHERE s.id = source_id));
CREATE POLICY memories_source_visible_upd ON recall.memories AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (source_id IS NULL OR EXISTS (SELECT 1 FROM recall.sources s WHERE s.id = source_id));

CREATE POLICY mentions_links_visible ON recall.mentions AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = entity_id));
CREATE POLICY mentions_links_visible_upd ON recall.mentions AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = entity_id));

CREATE POLICY relations_links_visible ON recall.relations AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = src_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = dst_id)
          AND (memory_id IS NULL OR EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)));
CREATE POLICY relations_links_visible_upd ON recall.relations AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = src_id)
          AND EXISTS (SELECT 1 FROM recall.entities e WHERE e.id = dst_id)
          AND (memory_id IS NULL OR EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id)));

CREATE POLICY summary_coverage_links_visible ON recall.summary_coverage AS RESTRICTIVE FOR INSERT TO recall_runtime
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = summary_id AND m.kind = 'summary')
          AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id));
CREATE POLICY summary_coverage_links_visible_upd ON recall.summary_coverage AS RESTRICTIVE FOR UPDATE TO recall_runtime
  USING (true)
  WITH CHECK (EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = summary_id AND m.kind = 'summary')
          AND EXISTS (SELECT 1 FROM recall.memories m WHERE m.id = memory_id));

GRANT EXECUTE ON FUNCTION recall.read_scopes(), recall.write_scopes(), recall.is_scope_set(text[]) TO recall_runtime;

-- +goose Down
DROP SCHEMA recall CASCADE;
