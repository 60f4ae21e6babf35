-- Whether a database of this name exists (the commands' databases: internal/command/cli).
SELECT count(*) FROM pg_database WHERE datname = @name
