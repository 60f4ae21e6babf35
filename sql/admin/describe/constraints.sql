-- A table's constraints ($1: its name, schema-qualified): primary key, unique, foreign keys, checks.
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid = $1::regclass
ORDER BY CASE contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'f' THEN 2 ELSE 3 END, conname
