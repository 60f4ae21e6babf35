#!/bin/bash
# The duplicate study (eval/results/duplicates.md): how trigram similarity thresholds and the
# two key rules of Batch.DuplicateMatch (recall.text_key, recall.words_key: migrations 00011
# and 00013) treat restatements and one-word changes of meaning.
# Usage: eval/duplicates/study.sh ADMIN_URL CORPUS.jsonl  (creates and drops database dupstudy)
set -euo pipefail
admin=$1 corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/edits.py" "$corpus" > "$work/edits.csv"
db=${admin/\/postgres\?/\/dupstudy?}
psql -X -q "$admin" -c "DROP DATABASE IF EXISTS dupstudy" -c "CREATE DATABASE dupstudy"
{
  echo "CREATE EXTENSION pg_trgm; CREATE SCHEMA recall;"
  awk '/^CREATE FUNCTION recall.text_key/{p=1} p{print} p && /\)\);$/{exit}' "$here/../../migrations/00011_duplicates.sql"
  awk '/^CREATE FUNCTION recall.words_key/{p=1} p{print} p && /g.\)\);$/{exit}' "$here/../../migrations/00013_duplicate_words.sql"
  echo "CREATE TABLE edits (id text, kind text, a text, b text);"
  echo "\\copy edits FROM '$work/edits.csv' CSV"
} | psql -X -q -v ON_ERROR_STOP=1 "$db"
psql -X -v ON_ERROR_STOP=1 "$db" <<'SQL'
CREATE TABLE scored AS
SELECT kind, similarity(recall.text_key(a), recall.text_key(b)) AS sim,
       recall.text_key(a) = recall.text_key(b) AS text_same,
       recall.words_key(a) = recall.words_key(b) AS words_same
FROM edits;
-- t95 (t50): the similarity threshold that merges 95% (50%) of the restatements
WITH t AS (SELECT percentile_disc(0.05) WITHIN GROUP (ORDER BY sim) AS t95,
                  percentile_disc(0.50) WITHIN GROUP (ORDER BY sim) AS t50 FROM scored WHERE kind = 'restated')
SELECT s.kind, count(*) AS pairs,
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY s.sim)::numeric, 3) AS median_similarity,
       round(avg((s.sim >= t.t95)::int)::numeric, 4) AS merged_at_t95,
       round(avg((s.sim >= t.t50)::int)::numeric, 4) AS merged_at_t50,
       round(avg((s.sim >= 0.9)::int)::numeric, 4) AS merged_at_090,
       round(avg(s.text_same::int)::numeric, 4) AS merged_by_text,
       round(avg(s.words_same::int)::numeric, 4) AS merged_by_words,
       round(min(t.t95)::numeric, 3) AS t95, round(min(t.t50)::numeric, 3) AS t50
FROM scored s CROSS JOIN t GROUP BY s.kind ORDER BY s.kind;
-- distinct documents of the corpus that each rule would call one
SELECT count(DISTINCT a) AS documents,
       count(DISTINCT a) - count(DISTINCT recall.text_key(a)) AS merged_by_text,
       count(DISTINCT a) - count(DISTINCT recall.words_key(a)) AS merged_by_words
FROM edits;
SQL
psql -X -q "$admin" -c "DROP DATABASE dupstudy"
