-- The graph lane's reads are index-only.
--
-- The graph lane walks relations from each entity it reaches, reads the newest mentions of
-- its heaviest entities and every mention of each candidate memory: thousands of rows per
-- recall, each of which row security checks (scopes && read_scopes()) on the heap. With
-- scopes (and what the lane reads) in the indexes, those are index-only scans once the pages
-- are all-visible: the graph lane at 100k memories went from 33.9 to 28.8-29.0 ms p50 (one
-- run before, two after, built by hand on the benchmark corpus and vacuumed). The plain
-- (entity_id) index of mentions is dropped: (entity_id, memory_id) serves its lookups.

-- +goose Up
CREATE INDEX relations_src_idx ON recall.relations (src_id) INCLUDE (dst_id, weight, scopes);
DROP INDEX recall.relations_dst_idx;
CREATE INDEX relations_dst_idx ON recall.relations (dst_id) INCLUDE (src_id, weight, scopes);
DROP INDEX recall.mentions_entity_idx;
DROP INDEX recall.mentions_entity_memory_idx;
CREATE INDEX mentions_entity_memory_idx ON recall.mentions (entity_id, memory_id) INCLUDE (scopes);
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_pkey,
  ADD CONSTRAINT mentions_pkey PRIMARY KEY (memory_id, entity_id) INCLUDE (scopes);

-- +goose Down
ALTER TABLE recall.mentions
  DROP CONSTRAINT mentions_pkey,
  ADD CONSTRAINT mentions_pkey PRIMARY KEY (memory_id, entity_id);
DROP INDEX recall.mentions_entity_memory_idx;
CREATE INDEX mentions_entity_memory_idx ON recall.mentions (entity_id, memory_id);
CREATE INDEX mentions_entity_idx ON recall.mentions (entity_id);
DROP INDEX recall.relations_dst_idx;
CREATE INDEX relations_dst_idx ON recall.relations (dst_id);
DROP INDEX recall.relations_src_idx;
