-- recall export: a scope set's entities, given and extracted ("auto:" ids), read as the
-- caller under row security, in the order they were first written. Derived aliases are not
-- read: a restore derives them again from the persons it writes.
SELECT external_id, name, kind, aliases, blocked_aliases, metadata
FROM recall.entities
WHERE scopes = @scopes::text[]
ORDER BY id
