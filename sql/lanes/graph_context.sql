-- The graph context of candidate u (output.sql): the visible relations with one end among
-- the entities u mentions and the other among those the query names (mention_entities),
-- each once, as JSON objects, the graph_context_k with the most graph lane mass (the sum
-- of its ends' masses in graph_top, 0 for an end outside it) first. The ends' names and the
-- evidence memory are read under row security: a relation whose end the caller cannot see
-- is left out, an evidence memory it cannot see is null. A relation that does not hold at
-- the recall's as_of (its evidence superseded or out of its window, migration 00012) is left
-- out too.
(SELECT jsonb_agg(jsonb_build_object('relation', x.id, 'subject', x.subject, 'predicate', x.predicate,
                                     'object', x.object, 'evidence', x.evidence, 'weight', x.weight, 'mass', x.mass)
                  ORDER BY x.mass DESC, x.id)
 FROM (
   SELECT r.id, es.name AS subject, r.predicate, ed.name AS object, ev.external_id AS evidence, r.weight,
          {{graph_mass_src}} + {{graph_mass_dst}} AS mass
   FROM (
     SELECT DISTINCT r.id
     FROM {{recall.mentions}} mn
     JOIN {{recall.relations}} r
       ON r.src_id = mn.entity_id AND r.dst_id IN (SELECT id FROM mention_entities)
       OR r.dst_id = mn.entity_id AND r.src_id IN (SELECT id FROM mention_entities)
     WHERE mn.memory_id = u.id AND NOT mn.speaker AND {{relation_holds}}
   ) k
   -- Each row by its key (OFFSET 0 keeps a subquery a probe per row: joined, a generic plan
   -- made on small tables read every scope's relations, entities or memories).
   CROSS JOIN LATERAL (
     SELECT r.id, r.src_id, r.dst_id, r.predicate, r.weight, r.memory_id FROM {{recall.relations}} r WHERE r.id = k.id OFFSET 0
   ) r
   CROSS JOIN LATERAL (SELECT es.name FROM {{recall.entities}} es WHERE es.id = r.src_id OFFSET 0) es
   CROSS JOIN LATERAL (SELECT ed.name FROM {{recall.entities}} ed WHERE ed.id = r.dst_id OFFSET 0) ed
   LEFT JOIN LATERAL (SELECT ev.external_id FROM {{recall.memories}} ev WHERE ev.id = r.memory_id OFFSET 0) ev ON true
   ORDER BY 7 DESC, r.id
   LIMIT @graph_context_k::int
 ) x)
