-- The extensions recall needs, in the database of the session, created by a superuser.
-- CREATE EXTENSION IF NOT EXISTS is not safe against a concurrent creator (two runs both find
-- it missing, and one fails on pg_extension's unique index): the creators of one database are
-- serialised by a transaction-scoped advisory lock.
SELECT pg_advisory_xact_lock(hashtext('recall.cli.extensions'));
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm
