-- recall's functions in the database with their bodies (pg_proc.prosrc, which every role may
-- read): what the engine and migrations compare with the function files.
SELECT 'recall.' || p.proname, p.prosrc FROM pg_proc p WHERE p.pronamespace = 'recall'::regnamespace
