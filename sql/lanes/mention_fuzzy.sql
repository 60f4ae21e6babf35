-- mention (fuzzy): also entities whose lowered name has trigram similarity >= mention_floor
-- with one of the query's mentions (qentities: its word n-grams of up to four words), by
-- recall.probe_entities (one trigram index probe per mention; see entity_probe.sql), joined
-- back under row security. The best-matching mention_entities_k are kept.
mention_entities AS MATERIALIZED (
  SELECT e.id, p.sim
  FROM {{probe_entities @qentities::text[], true, @mention_floor::float8}} p
  -- Each entity the probe found by its key (OFFSET 0 keeps the subquery a probe per row):
  -- joined, a generic plan made on small tables read every scope's entities.
  CROSS JOIN LATERAL (SELECT e.id FROM {{recall.entities}} e WHERE e.id = p.id OFFSET 0) e
  ORDER BY p.sim DESC, e.id
  LIMIT @mention_entities_k::int
)
