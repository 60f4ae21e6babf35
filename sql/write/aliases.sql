-- Derive the aliases of the persons of the batch's scope set: each word of a person's name of
-- several words (a first name, a surname) that no other person's name of the scope set has,
-- that is no other entity's name or alias, and that the person does not block. Run after the
-- batch's persons are written and before the names in its texts are linked, so "Kofi" in a
-- text (or a question) links to Kofi Mensah while he is the only Kofi.
WITH persons AS (
  SELECT e.id, e.name, e.blocked_aliases FROM recall.entities e
  WHERE e.scopes = @scopes::text[] AND e.kind = 'person'
),
words AS (
  SELECT p.id, lower(w) AS word
  FROM persons p, regexp_split_to_table(btrim(p.name), '\s+') AS w
  WHERE btrim(p.name) ~ '\s' AND length(w) >= 2
),
sole AS (
  SELECT w.word FROM words w GROUP BY w.word HAVING count(DISTINCT w.id) = 1
),
-- Words that are another entity's name or alias are taken.
taken AS (
  SELECT DISTINCT k AS word, e.id
  FROM recall.entities e, unnest(recall.entity_keys(e.name, e.aliases)) AS k
  WHERE e.scopes = @scopes::text[] AND k IN (SELECT word FROM sole)
),
derived AS (
  SELECT p.id, coalesce(array_agg(DISTINCT w.word ORDER BY w.word)
                          FILTER (WHERE s.word IS NOT NULL AND w.word <> ALL (p.blocked_aliases)
                                    AND NOT EXISTS (SELECT 1 FROM taken t WHERE t.word = w.word AND t.id <> p.id)), '{}') AS aliases
  FROM persons p
  LEFT JOIN words w ON w.id = p.id
  LEFT JOIN sole s ON s.word = w.word
  GROUP BY p.id
)
UPDATE recall.entities e SET derived_aliases = d.aliases
FROM derived d
WHERE e.id = d.id AND e.derived_aliases IS DISTINCT FROM d.aliases
