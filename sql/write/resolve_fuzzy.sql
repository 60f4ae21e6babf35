-- For each name (lowered), the entity of the batch's scope set whose name is most similar by
-- trigrams, at least pg_trgm.similarity_threshold (set by the caller), by the trigram index
-- (sql/write/entity_resolve.sql says why a function), and their similarity. Names with no
-- match are absent. Only names of several words come here: a short single token (an
-- acronym, a gene) shares trigrams with too many names to be matched loosely.
SELECT r.name, r.id, r.sim FROM recall.resolve_fuzzy(@names::text[], @scopes::text[]) r
