-- recall's functions: signature, result, language, attributes, whether the runtime role may call them, and the name (schema.sql's Functions).
SELECT p.oid::regprocedure::text, pg_get_function_result(p.oid), l.lanname,
       CASE p.provolatile WHEN 'i' THEN ' IMMUTABLE' WHEN 's' THEN ' STABLE' ELSE '' END
       || CASE WHEN p.proisstrict THEN ' STRICT' ELSE '' END
       || CASE WHEN p.prosecdef THEN ' SECURITY DEFINER' ELSE '' END
       || CASE WHEN p.proretset AND p.prorows <> 1000 THEN ' ROWS ' || p.prorows::int ELSE '' END
       || coalesce((SELECT string_agg(' SET ' || c, '' ORDER BY c) FROM unnest(p.proconfig) c), '')
       || CASE WHEN has_function_privilege('recall_runtime', p.oid, 'EXECUTE') THEN '' ELSE ' (not for recall_runtime)' END,
       'recall.' || p.proname
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'recall'::regnamespace
ORDER BY 1
