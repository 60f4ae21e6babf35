-- A relation holds while its evidence memory holds (issue 35, item 2): when "Ana lives in
-- Berlin" supersedes "Ana lives in Lisbon", the lives_in edge to Lisbon stops holding from
-- the same time, so the graph lane's walk at a later as_of no longer spreads mass along it.
-- A relation carries its evidence's window: valid_from is the memory's valid_from, and
-- valid_until the earliest of the memory's valid_until and, while it is superseded, its
-- superseded_at. The graph lane walks, and the graph context lists, only relations that hold
-- at the recall's as_of (sql/lanes/graph.sql, graph_context.sql). A relation without evidence
-- always holds. The columns are kept by triggers (sql/write/relation_validity.sql): when a
-- relation is written, and when its evidence's window changes (a supersession, a rewrite,
-- the release of an old memory when its successor is deleted). The walk's indexes carry them,
-- so its reads stay index-only.

-- +goose Up
ALTER TABLE recall.relations ADD COLUMN valid_from timestamptz, ADD COLUMN valid_until timestamptz;
UPDATE recall.relations r
SET valid_from = m.valid_from,
    valid_until = least(m.valid_until, CASE WHEN m.superseded_by IS NOT NULL THEN m.superseded_at END)
FROM recall.memories m
WHERE m.id = r.memory_id AND m.scopes = r.scopes
  AND (m.valid_from IS NOT NULL OR m.valid_until IS NOT NULL OR m.superseded_by IS NOT NULL);
DROP INDEX recall.relations_src_idx;
DROP INDEX recall.relations_dst_idx;
CREATE INDEX relations_src_idx ON recall.relations (src_id) INCLUDE (dst_id, weight, scopes, valid_from, valid_until);
CREATE INDEX relations_dst_idx ON recall.relations (dst_id) INCLUDE (src_id, weight, scopes, valid_from, valid_until);

-- +goose Down
DROP TRIGGER IF EXISTS memories_relations_follow ON recall.memories;
DROP TRIGGER IF EXISTS relations_evidence_window ON recall.relations;
DROP FUNCTION IF EXISTS recall.memories_relations_follow();
DROP FUNCTION IF EXISTS recall.relations_evidence_window();
DROP INDEX recall.relations_src_idx;
DROP INDEX recall.relations_dst_idx;
CREATE INDEX relations_src_idx ON recall.relations (src_id) INCLUDE (dst_id, weight, scopes);
CREATE INDEX relations_dst_idx ON recall.relations (dst_id) INCLUDE (src_id, weight, scopes);
ALTER TABLE recall.relations DROP COLUMN valid_until, DROP COLUMN valid_from;
