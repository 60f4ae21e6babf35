-- recall's schema, as migrations.Up builds it: the migrations, then the function files.
-- Generated from a migrated database by `make schema`; do not edit (a test compares them).
-- Function bodies are not repeated here: each names the file that defines it.

-- Functions
-- FUNCTION recall.api_key(text) RETURNS TABLE(secret_hash bytea, user_id text, label text, read_scopes text[], write_scopes text[]) LANGUAGE sql STABLE SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/keys/lookup.sql
-- FUNCTION recall.api_key_admin(text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/keys/lookup.sql
-- FUNCTION recall.apply_scopes(text[],text[],text[],text[]) RETURNS void LANGUAGE plpgsql
--   body: sql/engine/apply_scopes.sql
-- FUNCTION recall.bm25_flush() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.bm25_impact(numeric,numeric) RETURNS numeric LANGUAGE sql IMMUTABLE
--   body: sql/write/bm25.sql
-- FUNCTION recall.bm25_rebuild(text[],bigint[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.bm25_sync(recall.memories[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.bm25_terms_of(tsvector,tsvector[]) RETURNS TABLE(term text, tf integer, ntf integer) LANGUAGE sql IMMUTABLE
--   body: sql/write/bm25.sql
-- FUNCTION recall.bm25_touched(text[],bigint[],bigint[],integer[]) RETURNS bigint[] LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.doc_length(tsvector) RETURNS integer LANGUAGE sql IMMUTABLE SET search_path=pg_catalog, pg_temp
--   body: sql/write/lexemes.sql
-- FUNCTION recall.doc_lexemes(text,text) RETURNS tsvector LANGUAGE sql IMMUTABLE SET search_path=pg_catalog, pg_temp
--   body: sql/write/lexemes.sql
-- FUNCTION recall.ensure_vector_index(integer) RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/vector_index.sql
-- FUNCTION recall.entities_name_trigrams() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, public, pg_temp
--   body: sql/write/entity_trigrams.sql
-- FUNCTION recall.entity_keys(text,text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.erase_scope_set(text[],boolean) RETURNS TABLE(tbl text, n bigint) LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/erase.sql
-- FUNCTION recall.holds(timestamp with time zone,timestamp with time zone,bigint,timestamp with time zone,timestamp with time zone,timestamp with time zone,timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE
--   body: sql/lanes/filter.sql
-- FUNCTION recall.is_scope_set(text[]) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.local_shard(regclass,text[]) RETURNS text LANGUAGE plpgsql STABLE SET search_path=pg_catalog, pg_temp
--   body: sql/lanes/local_shard.sql
-- FUNCTION recall.memories_bm25_delete() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.memories_bm25_dirty() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.memories_bm25_insert() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.memories_bm25_update() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.memories_distributed() RETURNS boolean LANGUAGE plpgsql STABLE SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.memories_lexemes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/lexemes.sql
-- FUNCTION recall.memories_relations_follow() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/relation_validity.sql
-- FUNCTION recall.passage_bounds(text) RETURNS int4range[] LANGUAGE plpgsql IMMUTABLE SET search_path=pg_catalog, pg_temp
--   body: sql/write/lexemes.sql
-- FUNCTION recall.passage_max() RETURNS integer LANGUAGE sql IMMUTABLE
--   body: sql/write/lexemes.sql
-- FUNCTION recall.passage_words() RETURNS integer LANGUAGE sql IMMUTABLE
--   body: sql/write/lexemes.sql
-- FUNCTION recall.passes(text,text[],jsonb,timestamp with time zone,recall.filter) RETURNS boolean LANGUAGE sql IMMUTABLE
--   body: sql/lanes/filter.sql
-- FUNCTION recall.probe_entities(text[],boolean,double precision) RETURNS TABLE(id bigint, sim double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 16 SET enable_seqscan=off SET plan_cache_mode=force_generic_plan SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/entity_probe.sql
-- FUNCTION recall.probe_entities_routed(text[],text[],boolean,double precision) RETURNS TABLE(id bigint, sim double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 16 SET enable_seqscan=off SET plan_cache_mode=force_custom_plan SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/entity_probe.sql
-- FUNCTION recall.probe_entities_shard(text[],text[],boolean,double precision) RETURNS TABLE(id bigint, sim double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 16 SET enable_seqscan=off SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/entity_probe.sql
-- FUNCTION recall.probe_titles(text,integer,integer,double precision) RETURNS TABLE(id bigint, sim double precision, direct boolean) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 8 SET enable_seqscan=off SET plan_cache_mode=force_generic_plan SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/title_probe.sql
-- FUNCTION recall.probe_titles_routed(text[],text,integer,integer,double precision) RETURNS TABLE(id bigint, sim double precision, direct boolean) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 8 SET enable_seqscan=off SET plan_cache_mode=force_custom_plan SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/title_probe.sql
-- FUNCTION recall.probe_titles_shard(text[],text,integer,integer,double precision) RETURNS TABLE(id bigint, sim double precision, direct boolean) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 8 SET enable_seqscan=off SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/title_probe.sql
-- FUNCTION recall.read_scopes() RETURNS text[] LANGUAGE sql STABLE
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.relations_evidence_window() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/relation_validity.sql
-- FUNCTION recall.resolve_fuzzy(text[],text[]) RETURNS TABLE(name text, id bigint, sim double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER SET enable_seqscan=off SET search_path=pg_catalog, public, pg_temp
--   body: sql/write/entity_resolve.sql
-- FUNCTION recall.scope_key(text[]) RETURNS text LANGUAGE sql IMMUTABLE STRICT
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.scope_tokens(text[],text[]) RETURNS text[] LANGUAGE sql IMMUTABLE
--   body: sql/lanes/entity_probe.sql
-- FUNCTION recall.set_test() RETURNS text LANGUAGE sql STABLE SET search_path=pg_catalog, pg_temp
--   body: sql/write/bm25.sql
-- FUNCTION recall.shard_placement(text[]) RETURNS TABLE(tbl text, shard text, nodename text, nodeport integer) LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/lanes/local_shard.sql
-- FUNCTION recall.sources_title_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, pg_temp
--   body: sql/write/lexemes.sql
-- FUNCTION recall.sources_title_trigrams() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path=pg_catalog, public, pg_temp
--   body: sql/write/title_trigrams.sql
-- FUNCTION recall.text_key(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.title_key(text) RETURNS text LANGUAGE sql IMMUTABLE
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.vector_nearest(vector,integer) RETURNS TABLE(id bigint, distance double precision) LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 100 SET enable_seqscan=off SET plan_cache_mode=force_custom_plan SET search_path=pg_catalog, public, pg_temp
--   body: sql/lanes/vector_exact.sql
-- FUNCTION recall.vector_scope_max_dim() RETURNS integer LANGUAGE sql IMMUTABLE
--   body: sql/lanes/vector_exact.sql
-- FUNCTION recall.visible_corpus() RETURNS SETOF recall.bm25_corpus LANGUAGE sql STABLE ROWS 10 SET enable_seqscan=off
--   body: sql/lanes/visible_corpus.sql
-- FUNCTION recall.words_key(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT
--   body: migrations/00001_baseline.sql
-- FUNCTION recall.write_scopes() RETURNS text[] LANGUAGE sql STABLE
--   body: migrations/00001_baseline.sql

-- Types
CREATE TYPE recall.filter AS (
  kinds text[],
  tags text[],
  tags_mode text,
  metadata jsonb,
  from_time timestamp with time zone,
  to_time timestamp with time zone
);

-- Tables
CREATE TABLE recall.api_keys (
  id text NOT NULL,
  secret_hash bytea NOT NULL,
  user_id text NOT NULL,
  label text DEFAULT ''::text NOT NULL,
  read_scopes text[] NOT NULL,
  write_scopes text[] DEFAULT '{}'::text[] NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  revoked_at timestamp with time zone,
  admin boolean DEFAULT false NOT NULL,
  CONSTRAINT api_keys_pkey PRIMARY KEY (id),
  CONSTRAINT api_keys_check CHECK ((((cardinality(write_scopes) = 0) OR recall.is_scope_set(write_scopes)) AND (write_scopes <@ read_scopes))),
  CONSTRAINT api_keys_id_check CHECK ((id ~ '^[0-9a-f]{16}$'::text)),
  CONSTRAINT api_keys_label_check CHECK ((length(label) <= 256)),
  CONSTRAINT api_keys_read_scopes_check CHECK (recall.is_scope_set(read_scopes)),
  CONSTRAINT api_keys_secret_hash_check CHECK ((length(secret_hash) = 32)),
  CONSTRAINT api_keys_user_id_check CHECK (((length(user_id) >= 1) AND (length(user_id) <= 256)))
);
ALTER TABLE recall.api_keys ENABLE ROW LEVEL SECURITY;
COMMENT ON TABLE recall.api_keys IS 'Keys of the HTTP and MCP server: a hash of each, its user and scopes. Only the owner reads it.';

CREATE TABLE recall.bm25_corpus (
  scopes text[] NOT NULL,
  docs bigint NOT NULL,
  total_len bigint NOT NULL,
  cdocs bigint DEFAULT 0 NOT NULL,
  ctotal_len bigint DEFAULT 0 NOT NULL,
  ctotal_nlen bigint DEFAULT 0 NOT NULL,
  CONSTRAINT bm25_corpus_pkey PRIMARY KEY (scopes),
  CONSTRAINT bm25_corpus_cdocs_check CHECK ((cdocs >= 0)),
  CONSTRAINT bm25_corpus_ctotal_len_check CHECK ((ctotal_len >= 0)),
  CONSTRAINT bm25_corpus_ctotal_nlen_check CHECK ((ctotal_nlen >= 0)),
  CONSTRAINT bm25_corpus_docs_check CHECK ((docs >= 0)),
  CONSTRAINT bm25_corpus_total_len_check CHECK ((total_len >= 0))
);
ALTER TABLE recall.bm25_corpus ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON recall.bm25_corpus TO recall_runtime;

CREATE TABLE recall.bm25_dirty (
  scopes text[] NOT NULL,
  memory_id bigint NOT NULL,
  source_id bigint,
  position integer
);
ALTER TABLE recall.bm25_dirty ENABLE ROW LEVEL SECURITY;
COMMENT ON TABLE recall.bm25_dirty IS 'On Citus: memories changed in the open transaction whose lexical data recall.bm25_flush() rebuilds before commit. Empty on one server. Only the owner reads it.';

CREATE TABLE recall.bm25_docs (
  memory_id bigint NOT NULL,
  scopes text[] NOT NULL,
  doc_len integer NOT NULL,
  ndoc_len integer NOT NULL,
  positioned boolean NOT NULL,
  CONSTRAINT bm25_docs_pkey PRIMARY KEY (memory_id, scopes)
);

CREATE TABLE recall.bm25_postings (
  memory_id bigint NOT NULL,
  term text NOT NULL,
  scopes text[] NOT NULL,
  tf integer NOT NULL,
  doc_len integer NOT NULL,
  ntf integer DEFAULT 0 NOT NULL,
  ndoc_len integer DEFAULT 0 NOT NULL,
  positioned boolean DEFAULT false NOT NULL,
  impact real NOT NULL,
  scope_key text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED,
  ptf smallint[],
  pdoc_len smallint[],
  CONSTRAINT bm25_postings_pkey PRIMARY KEY (memory_id, term, scopes) INCLUDE (tf, doc_len, ntf, ndoc_len, positioned, ptf, pdoc_len),
  CONSTRAINT bm25_postings_check CHECK (((tf > 0) OR (ntf > 0))),
  CONSTRAINT bm25_postings_doc_len_check CHECK ((doc_len >= 0)),
  CONSTRAINT bm25_postings_ndoc_len_check CHECK ((ndoc_len >= 0)),
  CONSTRAINT bm25_postings_ntf_check CHECK ((ntf >= 0)),
  CONSTRAINT bm25_postings_tf_check CHECK ((tf >= 0))
);
ALTER TABLE recall.bm25_postings ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON recall.bm25_postings TO recall_runtime;

CREATE TABLE recall.bm25_terms (
  scopes text[] NOT NULL,
  term text NOT NULL,
  df bigint NOT NULL,
  cdf bigint DEFAULT 0 NOT NULL,
  CONSTRAINT bm25_terms_pkey PRIMARY KEY (scopes, term),
  CONSTRAINT bm25_terms_cdf_check CHECK ((cdf >= 0)),
  CONSTRAINT bm25_terms_df_check CHECK ((df >= 0))
);
ALTER TABLE recall.bm25_terms ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON recall.bm25_terms TO recall_runtime;

CREATE TABLE recall.entities (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  external_id text NOT NULL,
  scopes text[] NOT NULL,
  name text NOT NULL,
  kind text DEFAULT ''::text NOT NULL,
  aliases text[] DEFAULT '{}'::text[] NOT NULL,
  derived_aliases text[] DEFAULT '{}'::text[] NOT NULL,
  blocked_aliases text[] DEFAULT '{}'::text[] NOT NULL,
  metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  keys text[] GENERATED ALWAYS AS (recall.entity_keys(name, (aliases || derived_aliases))) STORED,
  CONSTRAINT entities_pkey PRIMARY KEY (id),
  CONSTRAINT entities_id_scopes_key UNIQUE (id, scopes),
  CONSTRAINT entities_scopes_external_id_key UNIQUE (scopes, external_id),
  CONSTRAINT entities_aliases_check CHECK ((array_position(aliases, NULL::text) IS NULL)),
  CONSTRAINT entities_blocked_aliases_check CHECK ((array_position(blocked_aliases, NULL::text) IS NULL)),
  CONSTRAINT entities_derived_aliases_check CHECK ((array_position(derived_aliases, NULL::text) IS NULL)),
  CONSTRAINT entities_external_id_check CHECK (((length(external_id) >= 1) AND (length(external_id) <= 512))),
  CONSTRAINT entities_metadata_check CHECK ((jsonb_typeof(metadata) = 'object'::text)),
  CONSTRAINT entities_name_check CHECK (((length(name) >= 1) AND (length(name) <= 512))),
  CONSTRAINT entities_scopes_check CHECK (recall.is_scope_set(scopes))
);
ALTER TABLE recall.entities ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.entities TO recall_runtime;
COMMENT ON TABLE recall.entities IS 'People, places, things the memories mention.';

CREATE TABLE recall.entity_trigrams (
  scope text NOT NULL,
  trigram text NOT NULL,
  entity_id bigint NOT NULL,
  scopes text[] NOT NULL,
  CONSTRAINT entity_trigrams_pkey PRIMARY KEY (scope, trigram, entity_id, scopes),
  CONSTRAINT entity_trigrams_entity_fkey FOREIGN KEY (entity_id, scopes) REFERENCES recall.entities(id, scopes) ON DELETE CASCADE
);
ALTER TABLE recall.entity_trigrams ENABLE ROW LEVEL SECURITY;
COMMENT ON TABLE recall.entity_trigrams IS 'Each entity name''s trigrams under each of its scopes, for the fuzzy entity probe of small callers. Only the owner reads it.';

CREATE TABLE recall.function_files (
  file text NOT NULL,
  sha256 text NOT NULL,
  applied_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT function_files_pkey PRIMARY KEY (file)
);

CREATE TABLE recall.memories (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  external_id text NOT NULL,
  scopes text[] NOT NULL,
  source_id bigint,
  kind text DEFAULT 'world'::text NOT NULL,
  text text NOT NULL,
  embedding vector STORAGE MAIN,
  lexemes tsvector DEFAULT ''::tsvector NOT NULL,
  doc_len integer DEFAULT 0 NOT NULL,
  occurred_start timestamp with time zone,
  occurred_end timestamp with time zone,
  mentioned_at timestamp with time zone,
  tags text[] DEFAULT '{}'::text[] NOT NULL,
  metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  scope_key text GENERATED ALWAYS AS (recall.scope_key(scopes)) STORED (n_distinct=-0.01),
  position integer,
  speaker text DEFAULT ''::text NOT NULL,
  is_question boolean GENERATED ALWAYS AS ((strpos(text, '?'::text) > 0)) STORED,
  refers_start timestamp with time zone,
  refers_end timestamp with time zone,
  expires_at timestamp with time zone,
  valid_from timestamp with time zone,
  valid_until timestamp with time zone,
  superseded_by bigint,
  superseded_at timestamp with time zone,
  duplicate_of bigint,
  passages int4range[],
  CONSTRAINT memories_pkey PRIMARY KEY (id),
  CONSTRAINT memories_id_scopes_key UNIQUE (id, scopes),
  CONSTRAINT memories_scopes_external_id_key UNIQUE (scopes, external_id),
  CONSTRAINT memories_duplicate_fkey FOREIGN KEY (duplicate_of, scopes) REFERENCES recall.memories(id, scopes) ON DELETE SET NULL (duplicate_of),
  CONSTRAINT memories_source_fkey FOREIGN KEY (source_id, scopes) REFERENCES recall.sources(id, scopes) ON DELETE CASCADE,
  CONSTRAINT memories_superseded_fkey FOREIGN KEY (superseded_by, scopes) REFERENCES recall.memories(id, scopes) ON DELETE SET NULL (superseded_by),
  CONSTRAINT memories_check CHECK (((occurred_end IS NULL) OR (occurred_start IS NULL) OR (occurred_end >= occurred_start))),
  CONSTRAINT memories_check1 CHECK ((("position" IS NULL) OR (source_id IS NOT NULL))),
  CONSTRAINT memories_doc_len_check CHECK ((doc_len >= 0)),
  CONSTRAINT memories_external_id_check CHECK (((length(external_id) >= 1) AND (length(external_id) <= 512))),
  CONSTRAINT memories_kind_check CHECK ((kind = ANY (ARRAY['world'::text, 'experience'::text, 'observation'::text, 'summary'::text]))),
  CONSTRAINT memories_metadata_check CHECK ((jsonb_typeof(metadata) = 'object'::text)),
  CONSTRAINT memories_position_check CHECK (("position" > 0)),
  CONSTRAINT memories_refers_check CHECK ((((refers_start IS NULL) = (refers_end IS NULL)) AND (refers_end > refers_start))),
  CONSTRAINT memories_scopes_check CHECK (recall.is_scope_set(scopes)),
  CONSTRAINT memories_speaker_check CHECK ((length(speaker) <= 512)),
  CONSTRAINT memories_superseded_check CHECK ((superseded_by <> id)),
  CONSTRAINT memories_tags_check CHECK ((array_position(tags, NULL::text) IS NULL)),
  CONSTRAINT memories_text_check CHECK (((length(text) >= 1) AND (length(text) <= 1000000))),
  CONSTRAINT memories_valid_check CHECK ((valid_until > valid_from))
) WITH (toast_tuple_target=8160);
ALTER TABLE recall.memories ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.memories TO recall_runtime;
COMMENT ON TABLE recall.memories IS 'The recallable unit.';

CREATE TABLE recall.memory_access (
  memory_id bigint NOT NULL,
  scopes text[] NOT NULL,
  last_accessed timestamp with time zone NOT NULL,
  access_count bigint NOT NULL,
  CONSTRAINT memory_access_pkey PRIMARY KEY (memory_id, scopes),
  CONSTRAINT memory_access_memory_fkey FOREIGN KEY (memory_id, scopes) REFERENCES recall.memories(id, scopes) ON DELETE CASCADE,
  CONSTRAINT memory_access_access_count_check CHECK ((access_count > 0)),
  CONSTRAINT memory_access_scopes_check CHECK (recall.is_scope_set(scopes))
) WITH (fillfactor=70);
ALTER TABLE recall.memory_access ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.memory_access TO recall_runtime;
COMMENT ON TABLE recall.memory_access IS 'When and how often each memory was packed into a recall.';

CREATE TABLE recall.mentions (
  memory_id bigint NOT NULL,
  entity_id bigint NOT NULL,
  scopes text[] NOT NULL,
  speaker boolean DEFAULT false NOT NULL,
  CONSTRAINT mentions_pkey PRIMARY KEY (memory_id, entity_id, scopes) INCLUDE (speaker),
  CONSTRAINT mentions_entity_fkey FOREIGN KEY (entity_id, scopes) REFERENCES recall.entities(id, scopes) ON DELETE CASCADE,
  CONSTRAINT mentions_memory_scopes_fkey FOREIGN KEY (memory_id, scopes) REFERENCES recall.memories(id, scopes) ON DELETE CASCADE,
  CONSTRAINT mentions_scopes_check CHECK (recall.is_scope_set(scopes))
);
ALTER TABLE recall.mentions ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.mentions TO recall_runtime;

CREATE TABLE recall.relations (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  scopes text[] NOT NULL,
  src_id bigint NOT NULL,
  dst_id bigint NOT NULL,
  predicate text DEFAULT 'related_to'::text NOT NULL,
  weight double precision DEFAULT 1 NOT NULL,
  memory_id bigint,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  valid_from timestamp with time zone,
  valid_until timestamp with time zone,
  CONSTRAINT relations_pkey PRIMARY KEY (id),
  CONSTRAINT relations_dst_fkey FOREIGN KEY (dst_id, scopes) REFERENCES recall.entities(id, scopes) ON DELETE CASCADE,
  CONSTRAINT relations_memory_fkey FOREIGN KEY (memory_id, scopes) REFERENCES recall.memories(id, scopes) ON DELETE CASCADE,
  CONSTRAINT relations_src_fkey FOREIGN KEY (src_id, scopes) REFERENCES recall.entities(id, scopes) ON DELETE CASCADE,
  CONSTRAINT relations_check CHECK ((src_id <> dst_id)),
  CONSTRAINT relations_predicate_check CHECK (((length(predicate) >= 1) AND (length(predicate) <= 256))),
  CONSTRAINT relations_scopes_check CHECK (recall.is_scope_set(scopes)),
  CONSTRAINT relations_weight_check CHECK (((weight > (0)::double precision) AND (weight < 'Infinity'::double precision)))
);
ALTER TABLE recall.relations ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.relations TO recall_runtime;

CREATE TABLE recall.scopes (
  name text NOT NULL,
  scopes text[] GENERATED ALWAYS AS (ARRAY[name]) STORED,
  description text DEFAULT ''::text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT scopes_pkey PRIMARY KEY (name),
  CONSTRAINT scopes_name_check CHECK ((name ~ '^[A-Za-z0-9_.:/@-]{1,128}$'::text))
);
ALTER TABLE recall.scopes ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.scopes TO recall_runtime;
COMMENT ON TABLE recall.scopes IS 'Registry of scope names; a scope is visible to the callers who read it.';

CREATE TABLE recall.sources (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  external_id text NOT NULL,
  scopes text[] NOT NULL,
  title text DEFAULT ''::text NOT NULL,
  uri text DEFAULT ''::text NOT NULL,
  occurred_at timestamp with time zone,
  metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT sources_pkey PRIMARY KEY (id),
  CONSTRAINT sources_id_scopes_key UNIQUE (id, scopes),
  CONSTRAINT sources_scopes_external_id_key UNIQUE (scopes, external_id),
  CONSTRAINT sources_external_id_check CHECK (((length(external_id) >= 1) AND (length(external_id) <= 512))),
  CONSTRAINT sources_metadata_check CHECK ((jsonb_typeof(metadata) = 'object'::text)),
  CONSTRAINT sources_scopes_check CHECK (recall.is_scope_set(scopes))
);
ALTER TABLE recall.sources ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.sources TO recall_runtime;
COMMENT ON TABLE recall.sources IS 'Documents memories come from: title, uri, when it happened.';

CREATE TABLE recall.summary_coverage (
  summary_id bigint NOT NULL,
  memory_id bigint NOT NULL,
  scopes text[] NOT NULL,
  CONSTRAINT summary_coverage_pkey PRIMARY KEY (summary_id, memory_id, scopes),
  CONSTRAINT summary_coverage_memory_fkey FOREIGN KEY (memory_id, scopes) REFERENCES recall.memories(id, scopes) ON DELETE CASCADE,
  CONSTRAINT summary_coverage_summary_fkey FOREIGN KEY (summary_id, scopes) REFERENCES recall.memories(id, scopes) ON DELETE CASCADE,
  CONSTRAINT summary_coverage_check CHECK ((summary_id <> memory_id)),
  CONSTRAINT summary_coverage_scopes_check CHECK (recall.is_scope_set(scopes))
);
ALTER TABLE recall.summary_coverage ENABLE ROW LEVEL SECURITY;
GRANT DELETE, INSERT, SELECT, UPDATE ON recall.summary_coverage TO recall_runtime;

CREATE TABLE recall.title_trigrams (
  scope text NOT NULL,
  trigram text NOT NULL,
  source_id bigint NOT NULL,
  scopes text[] NOT NULL,
  CONSTRAINT title_trigrams_pkey PRIMARY KEY (scope, trigram, source_id, scopes),
  CONSTRAINT title_trigrams_source_fkey FOREIGN KEY (source_id, scopes) REFERENCES recall.sources(id, scopes) ON DELETE CASCADE
);
ALTER TABLE recall.title_trigrams ENABLE ROW LEVEL SECURITY;
COMMENT ON TABLE recall.title_trigrams IS 'Each source title''s trigrams under each of its scopes, for the fuzzy title probe of small callers. Only the owner reads it.';


-- Indexes (besides those of primary keys and unique constraints)
CREATE INDEX bm25_corpus_scopes_idx ON recall.bm25_corpus USING gin (scopes);
CREATE INDEX bm25_postings_lookup_idx ON recall.bm25_postings USING btree (scope_key, term, impact DESC) INCLUDE (memory_id, scopes, tf, doc_len, ntf, ndoc_len, positioned, ptf, pdoc_len);
CREATE INDEX bm25_terms_term_idx ON recall.bm25_terms USING btree (term) INCLUDE (scopes, df, cdf);
CREATE INDEX entities_key_tokens_idx ON recall.entities USING gin (recall.scope_tokens(scopes, keys)) WITH (fastupdate=off);
CREATE INDEX entities_keys_idx ON recall.entities USING gin (keys) WITH (fastupdate=off);
CREATE INDEX entities_lower_name_idx ON recall.entities USING btree (lower(name));
CREATE INDEX entities_trgm_scopes_15_24_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(name))) >= 15) AND (cardinality(show_trgm(lower(name))) <= 24));
CREATE INDEX entities_trgm_scopes_1_8_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE (cardinality(show_trgm(lower(name))) <= 8);
CREATE INDEX entities_trgm_scopes_25_40_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(name))) >= 25) AND (cardinality(show_trgm(lower(name))) <= 40));
CREATE INDEX entities_trgm_scopes_41_up_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE (cardinality(show_trgm(lower(name))) >= 41);
CREATE INDEX entities_trgm_scopes_9_14_idx ON recall.entities USING gin (lower(name) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(name))) >= 9) AND (cardinality(show_trgm(lower(name))) <= 14));
CREATE INDEX entity_trigrams_entity_idx ON recall.entity_trigrams USING btree (entity_id);
CREATE INDEX memories_duplicate_of_idx ON recall.memories USING btree (duplicate_of) WHERE (duplicate_of IS NOT NULL);
CREATE INDEX memories_expiring_idx ON recall.memories USING btree (scope_key, expires_at) WHERE (expires_at IS NOT NULL);
CREATE INDEX memories_occurred_end_idx ON recall.memories USING btree (occurred_end) WHERE (occurred_end IS NOT NULL);
CREATE INDEX memories_occurred_idx ON recall.memories USING btree (occurred_start, id);
CREATE INDEX memories_scope_refers_idx ON recall.memories USING btree (scope_key, refers_start, id) WHERE (refers_start IS NOT NULL);
CREATE INDEX memories_scope_time_idx ON recall.memories USING btree (scope_key, occurred_start, id);
CREATE INDEX memories_source_place_idx ON recall.memories USING btree (source_id, "position");
CREATE INDEX memories_superseded_idx ON recall.memories USING btree (superseded_by) WHERE (superseded_by IS NOT NULL);
CREATE INDEX memories_tags_idx ON recall.memories USING gin (tags);
CREATE INDEX memories_text_key_idx ON recall.memories USING btree (scopes, md5(recall.text_key(text))) WHERE ("position" IS NULL);
CREATE INDEX memories_unsplit_idx ON recall.memories USING btree (id) WHERE (passages IS NULL);
CREATE INDEX memories_words_key_idx ON recall.memories USING btree (scopes, md5(recall.words_key(text))) WHERE ("position" IS NULL);
CREATE INDEX mentions_entity_memory_idx ON recall.mentions USING btree (entity_id, memory_id) INCLUDE (scopes, speaker);
CREATE INDEX relations_dst_idx ON recall.relations USING btree (dst_id) INCLUDE (src_id, weight, scopes, valid_from, valid_until);
CREATE UNIQUE INDEX relations_edge_idx ON recall.relations USING btree (src_id, dst_id, predicate, COALESCE(memory_id, (0)::bigint), scopes);
CREATE INDEX relations_memory_idx ON recall.relations USING btree (memory_id);
CREATE INDEX relations_src_idx ON recall.relations USING btree (src_id) INCLUDE (dst_id, weight, scopes, valid_from, valid_until);
CREATE INDEX sources_title_tokens_idx ON recall.sources USING gin (recall.scope_tokens(scopes, ARRAY[recall.title_key(title)])) WITH (fastupdate=off);
CREATE INDEX sources_trgm_scopes_111_up_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE (cardinality(show_trgm(lower(title))) >= 111);
CREATE INDEX sources_trgm_scopes_15_24_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(title))) >= 15) AND (cardinality(show_trgm(lower(title))) <= 24));
CREATE INDEX sources_trgm_scopes_1_8_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE (cardinality(show_trgm(lower(title))) <= 8);
CREATE INDEX sources_trgm_scopes_25_40_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(title))) >= 25) AND (cardinality(show_trgm(lower(title))) <= 40));
CREATE INDEX sources_trgm_scopes_41_66_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(title))) >= 41) AND (cardinality(show_trgm(lower(title))) <= 66));
CREATE INDEX sources_trgm_scopes_67_110_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(title))) >= 67) AND (cardinality(show_trgm(lower(title))) <= 110));
CREATE INDEX sources_trgm_scopes_9_14_idx ON recall.sources USING gin (lower(title) gin_trgm_ops, scopes) WITH (fastupdate=off) WHERE ((cardinality(show_trgm(lower(title))) >= 9) AND (cardinality(show_trgm(lower(title))) <= 14));
CREATE INDEX summary_coverage_memory_idx ON recall.summary_coverage USING btree (memory_id);
CREATE INDEX title_trigrams_source_idx ON recall.title_trigrams USING btree (source_id);

-- Triggers
CREATE TRIGGER entities_name_trigrams AFTER INSERT OR UPDATE OF name, scopes ON recall.entities FOR EACH ROW EXECUTE FUNCTION recall.entities_name_trigrams();
CREATE TRIGGER entities_name_trigrams_old BEFORE UPDATE OF name, scopes ON recall.entities FOR EACH ROW EXECUTE FUNCTION recall.entities_name_trigrams();
CREATE TRIGGER memories_bm25_delete AFTER DELETE ON recall.memories REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_delete();
CREATE TRIGGER memories_bm25_insert AFTER INSERT ON recall.memories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_insert();
CREATE TRIGGER memories_bm25_update AFTER UPDATE ON recall.memories REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall.memories_bm25_update();
CREATE TRIGGER memories_lexemes BEFORE INSERT OR UPDATE OF text, source_id ON recall.memories FOR EACH ROW EXECUTE FUNCTION recall.memories_lexemes();
CREATE TRIGGER memories_relations_follow AFTER UPDATE OF valid_from, valid_until, superseded_by, superseded_at ON recall.memories FOR EACH ROW WHEN (((old.valid_from IS DISTINCT FROM new.valid_from) OR (old.valid_until IS DISTINCT FROM new.valid_until) OR (old.superseded_by IS DISTINCT FROM new.superseded_by) OR (old.superseded_at IS DISTINCT FROM new.superseded_at))) EXECUTE FUNCTION recall.memories_relations_follow();
CREATE TRIGGER relations_evidence_window BEFORE INSERT OR UPDATE OF memory_id, scopes ON recall.relations FOR EACH ROW EXECUTE FUNCTION recall.relations_evidence_window();
CREATE TRIGGER sources_title_changed AFTER UPDATE OF title ON recall.sources FOR EACH ROW WHEN ((old.title IS DISTINCT FROM new.title)) EXECUTE FUNCTION recall.sources_title_changed();
CREATE TRIGGER sources_title_trigrams AFTER INSERT OR UPDATE OF title, scopes ON recall.sources FOR EACH ROW EXECUTE FUNCTION recall.sources_title_trigrams();
CREATE TRIGGER sources_title_trigrams_old BEFORE UPDATE OF title, scopes ON recall.sources FOR EACH ROW EXECUTE FUNCTION recall.sources_title_trigrams();


-- Policies
CREATE POLICY bm25_corpus_read ON recall.bm25_corpus FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY bm25_postings_read ON recall.bm25_postings FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY bm25_terms_read ON recall.bm25_terms FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY entities_delete ON recall.entities FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY entities_insert ON recall.entities FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY entities_read ON recall.entities FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY entities_update ON recall.entities FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memories_delete ON recall.memories FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memories_insert ON recall.memories FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memories_read ON recall.memories FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY memories_update ON recall.memories FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memory_access_delete ON recall.memory_access FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memory_access_insert ON recall.memory_access FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY memory_access_read ON recall.memory_access FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY memory_access_update ON recall.memory_access FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY mentions_delete ON recall.mentions FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY mentions_insert ON recall.mentions FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY mentions_read ON recall.mentions FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY mentions_update ON recall.mentions FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY relations_delete ON recall.relations FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY relations_insert ON recall.relations FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY relations_read ON recall.relations FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY relations_update ON recall.relations FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY scopes_delete ON recall.scopes FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY scopes_insert ON recall.scopes FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY scopes_read ON recall.scopes FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY scopes_update ON recall.scopes FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY sources_delete ON recall.sources FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY sources_insert ON recall.sources FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY sources_read ON recall.sources FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY sources_update ON recall.sources FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY summary_coverage_delete ON recall.summary_coverage FOR DELETE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY summary_coverage_insert ON recall.summary_coverage FOR INSERT TO recall_runtime WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
CREATE POLICY summary_coverage_read ON recall.summary_coverage FOR SELECT TO recall_runtime USING ((scopes && ( SELECT recall.read_scopes() AS read_scopes)));
CREATE POLICY summary_coverage_update ON recall.summary_coverage FOR UPDATE TO recall_runtime USING ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes))) WITH CHECK ((scopes <@ ( SELECT recall.write_scopes() AS write_scopes)));
