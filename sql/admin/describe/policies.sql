-- recall's row security policies, as CREATE POLICY writes them.
SELECT format('CREATE POLICY %I ON recall.%I%s FOR %s TO %s', policyname, tablename,
              CASE WHEN permissive = 'RESTRICTIVE' THEN ' AS RESTRICTIVE' ELSE '' END, cmd,
              array_to_string(roles, ', '))
       || coalesce(' USING (' || qual || ')', '') || coalesce(' WITH CHECK (' || with_check || ')', '')
FROM pg_policies WHERE schemaname = 'recall'
ORDER BY tablename, policyname
