-- The function files applied, with the hash of the text applied (migrations.CheckFunctions).
SELECT file, sha256 FROM recall.function_files
