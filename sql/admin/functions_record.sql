-- Record that function file $1 was applied with text of hash $2 (migrations.ApplyFunctions).
INSERT INTO recall.function_files (file, sha256) VALUES ($1, $2)
ON CONFLICT (file) DO UPDATE SET sha256 = excluded.sha256, applied_at = now()
