-- Whether the shard of recall.memories that holds scope set $1 is $2 and placed on this node
-- (statement.RunOnShard asks the worker before it reads: a moved shard's old table can stay
-- behind on its old node until Citus cleans it up).
SELECT recall.local_shard('recall.memories'::regclass, $1::text[]) IS NOT DISTINCT FROM $2::text
