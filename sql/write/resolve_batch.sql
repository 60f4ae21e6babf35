-- Of pairs of a batch's names (@a[i], @b[i], lowered: a name of several words with no
-- entity's exact name, and another the batch may create an entity of), those at least
-- pg_trgm.similarity_threshold similar by trigrams, and their similarity: the writer matches
-- a name against the entities earlier names of its batch create, as a later batch would match
-- it against them stored (write/names.go, which picks the pairs that can reach it).
SELECT p.a, p.b, similarity(p.a, p.b)::float8
FROM unnest(@a::text[], @b::text[]) AS p(a, b)
WHERE p.a % p.b
