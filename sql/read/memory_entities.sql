-- Engine.Memory's entities and relations: the entities the memory mentions (speakers
-- marked), and the relations with an end among them (those it is the evidence of first,
-- then by weight; at most @limit), each with whether it holds now (migration 00012), under
-- row security: a relation whose other end the caller cannot see is left out.
SELECT 'entity' AS what, e.external_id AS id, e.name, e.kind, mn.speaker, NULL::text AS predicate, NULL::text AS object,
       NULL::text AS evidence, NULL::float8 AS weight, NULL::bool AS holds
FROM {{recall.mentions}} mn
JOIN {{recall.entities}} e ON e.id = mn.entity_id AND e.scopes = mn.scopes
WHERE mn.memory_id = @memory::bigint AND mn.scopes = @scopes::text[]
UNION ALL
SELECT * FROM (
  SELECT 'relation', NULL::text, es.name, NULL::text, NULL::bool, r.predicate, ed.name, ev.external_id, r.weight,
         (r.valid_from IS NULL OR r.valid_from <= @now::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @now::timestamptz)
  FROM (SELECT DISTINCT r.id
        FROM {{recall.mentions}} mn
        JOIN {{recall.relations}} r ON (r.src_id = mn.entity_id OR r.dst_id = mn.entity_id) AND r.scopes = mn.scopes
        WHERE mn.memory_id = @memory::bigint AND mn.scopes = @scopes::text[]) k
  JOIN {{recall.relations}} r ON r.id = k.id AND r.scopes = @scopes::text[]
  JOIN {{recall.entities}} es ON es.id = r.src_id AND es.scopes = r.scopes
  JOIN {{recall.entities}} ed ON ed.id = r.dst_id AND ed.scopes = r.scopes
  LEFT JOIN {{recall.memories}} ev ON ev.id = r.memory_id AND ev.scopes = r.scopes
  ORDER BY (r.memory_id = @memory::bigint) DESC NULLS LAST, r.weight DESC, r.id
  LIMIT @limit::int
) rel
