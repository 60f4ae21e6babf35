#!/usr/bin/env bash
# bench-ingest.sh N BIN [BIN...]: the ingest rate of `recall ingest` on chat turns, each
# binary against the others in one run (BENCHMARKS.md).
#
# Writes the first N turns of LongMemEval dev (../shared/data/longmemeval-s: long user and
# assistant turns), or with N given as locomo:K LoCoMo dev's turns K times over
# (../shared/data/locomo-dev: short messages between two people, each copy its own sessions),
# read where they are and never copied into the checkout, as turns JSONL in a temporary
# directory; then for each of ROUNDS rounds (default 2)
# and each BIN in turn: a fresh database on the private server (scripts/db.sh), `recall
# migrate up`, `recall ingest FILE --scope s1`, then the same file again into scope set s2
# beside it (a second set: the tables already hold rows). Prints each ingest's summary line
# (memories a second). The binaries alternate so that the machine's drift falls on all alike.
# INGEST_FLAGS are added to each `recall ingest` (e.g. INGEST_FLAGS='--batch 100').
# NOLEXICAL=1 adds, after each binary's arm, the same arm with the lexical upkeep's insert
# trigger (memories_bm25_insert) disabled: no postings or statistics are written, so nothing
# is found by words. Not a way to run: it bounds what any speed-up of the upkeep can reach.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:?usage: bench-ingest.sh N|locomo:K BIN [BIN...]}
shift
[ $# -gt 0 ] || { echo "bench-ingest.sh: give at least one recall binary" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case $n in
locomo:*)
	times=${n#locomo:}
	[[ $times =~ ^[1-9][0-9]*$ ]] || { echo "bench-ingest.sh: locomo:K wants a count K >= 1, not '$times'" >&2; exit 2; }
	data=${LOCOMO_DEV:-$root/../shared/data/locomo-dev/corpus.jsonl}
	[ -r "$data" ] || { echo "bench-ingest.sh: $data is not readable (set LOCOMO_DEV)" >&2; exit 2; }
	python3 - "$data" "$times" "$work/turns.jsonl" <<'EOF'
import json, sys
from datetime import datetime
src, times, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [json.loads(l) for l in open(src)]
with open(out, "w") as f:
    for copy in range(times):
        for r in rows:
            md = r["metadata"]
            # "1:56 pm on 8 May, 2023" -> "2023-05-08 13:56"
            when = datetime.strptime(md["date_time"].replace(" on ", " "), "%I:%M %p %d %B, %Y")
            f.write(json.dumps({"speaker": md["speaker"], "text": r["text"], "date": when.strftime("%Y-%m-%d %H:%M"),
                                "conversation": "%d/%s/%s" % (copy, md["conv"], md["session"])}) + "\n")
EOF
	;;
*)
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench-ingest.sh: N wants a count >= 1 or locomo:K, not '$n'" >&2; exit 2; }
	data=${LONGMEMEVAL_DEV:-$root/../shared/data/longmemeval-s/longmemeval_s_dev.json}
	[ -r "$data" ] || { echo "bench-ingest.sh: $data is not readable (set LONGMEMEVAL_DEV)" >&2; exit 2; }
	python3 - "$data" "$n" "$work/turns.jsonl" <<'EOF'
import json, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
written = 0
with open(out, "w") as f:
    for q in json.load(open(src)):
        for sid, date, session in zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"]):
            for turn in session:
                if written == n:
                    sys.exit(0)
                if not turn["content"].strip():
                    continue
                # "2023/05/20 (Sat) 07:47" -> "2023-05-20 07:47"
                day, clock = date.split(" (")[0].replace("/", "-"), date.split(") ")[1]
                f.write(json.dumps({"speaker": turn["role"], "text": turn["content"], "date": day + " " + clock,
                                    "conversation": q["question_id"] + "/" + sid}) + "\n")
                written += 1
EOF
	;;
esac

admin=$("$root/scripts/db.sh" start | tail -1)
base=${admin%/*}
for round in $(seq "${ROUNDS:-2}"); do
	arms=()
	for bin in "$@"; do
		arms+=("$bin:upkeep")
		[ "${NOLEXICAL:-0}" = 1 ] && arms+=("$bin:nolexical")
	done
	for arm in "${arms[@]}"; do
		bin=${arm%:*}
		db=bench_ingest_$$
		psql -q "$admin" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
		psql -q "$base/$db?sslmode=disable" -c 'CREATE EXTENSION vector; CREATE EXTENSION pg_trgm;'
		export RECALL_DATABASE_URL="$base/$db?sslmode=disable"
		"$bin" migrate up >/dev/null
		label=$bin
		if [ "${arm##*:}" = nolexical ]; then
			psql -q "$base/$db?sslmode=disable" -c 'ALTER TABLE recall.memories DISABLE TRIGGER memories_bm25_insert'
			label="$bin (no lexical upkeep)"
		fi
		for set in s1 s2; do
			printf 'round %s %s %s: ' "$round" "$label" "$set"
			"$bin" ingest "$work/turns.jsonl" --scope "$set" ${INGEST_FLAGS:-} 2>&1 | tail -1
		done
		psql -q "$admin" -c "DROP DATABASE $db"
	done
done
