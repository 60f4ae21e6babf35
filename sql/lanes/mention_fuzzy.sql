-- mention (fuzzy): also entities whose name appears approximately in the raw query:
-- word_similarity(name, query) >= mention_floor (pg_trgm; the executor sets
-- pg_trgm.word_similarity_threshold to the same value so the trigram index answers <%).
mention_entities AS MATERIALIZED (
  SELECT id, max(sim) AS sim FROM (
    SELECT e.id, 1.0::float8 AS sim FROM recall.entities e WHERE e.keys && @qentities::text[]
    UNION ALL
    SELECT e.id, word_similarity(lower(e.name), @qlower::text)::float8
    FROM recall.entities e
    WHERE lower(e.name) <% @qlower::text
      AND word_similarity(lower(e.name), @qlower::text) >= @mention_floor::float8
  ) x
  GROUP BY id
  ORDER BY max(sim) DESC, id
  LIMIT @mention_entities_k::int
)
