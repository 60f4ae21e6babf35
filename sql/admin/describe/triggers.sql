-- recall's triggers.
SELECT pg_get_triggerdef(t.oid)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'recall'::regnamespace AND NOT t.tgisinternal
ORDER BY c.relname, t.tgname
