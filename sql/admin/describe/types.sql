-- recall's composite types, attribute by attribute (schema.sql's Types).
SELECT t.typname, a.attname, format_type(a.atttypid, a.atttypmod)
FROM pg_type t
JOIN pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE t.typnamespace = 'recall'::regnamespace
ORDER BY t.typname, a.attnum
