-- Does the connected role escape row security? A superuser, a BYPASSRLS role, or the owner
-- of the tables (row security is not forced on the owner) would see every scope.
SELECT r.rolsuper OR r.rolbypassrls OR pg_has_role(current_user, c.relowner, 'MEMBER') AS unsafe,
       current_user::text AS role
FROM pg_roles r, pg_class c
WHERE r.rolname = current_user AND c.oid = 'recall.memories'::regclass
