-- recall's tables: options, row security, comment, the runtime role's grants (schema.sql's Tables).
SELECT c.relname, coalesce(array_to_string(c.reloptions, ', '), ''),
       c.relrowsecurity::text, coalesce(obj_description(c.oid, 'pg_class'), ''),
       coalesce((SELECT string_agg(privilege_type, ', ' ORDER BY privilege_type)
                 FROM information_schema.role_table_grants g
                 WHERE g.grantee = 'recall_runtime' AND g.table_schema = 'recall' AND g.table_name = c.relname), '')
FROM pg_class c WHERE c.relnamespace = 'recall'::regnamespace AND c.relkind = 'r'
ORDER BY c.relname
