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
   JOIN {{recall.relations}} r ON r.id = k.id
   JOIN {{recall.entities}} es ON es.id = r.src_id
   JOIN {{recall.entities}} ed ON ed.id = r.dst_id
   LEFT JOIN {{recall.memories}} ev ON ev.id = r.memory_id
   ORDER BY 7 DESC, r.id
   LIMIT @graph_context_k::int
 ) x)
