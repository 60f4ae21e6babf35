#!/usr/bin/env bash
# db.sh: a private PostgreSQL server for this checkout (tests, benchmarks, demo).
#
#   scripts/db.sh start   install if missing, init if missing, start if stopped; prints the admin URL last
#   scripts/db.sh url     prints the admin URL (no side effects)
#   scripts/db.sh status  says whether the server runs
#   scripts/db.sh stop    stops the server
#   scripts/db.sh clean   stops the server (and its replica) and deletes its data directory
#   scripts/db.sh replica start|stop
#                         a hot-standby replica of the server (which must have been created
#                         with RECALL_PG_REPLICATION=1) on RECALL_PG_REPLICA_PORT, made by
#                         pg_basebackup with a replication slot; start prints its admin URL last
#
# The server is for development: fsync is off (unless RECALL_PG_DURABLE=1, as the recall
# command's embedded server sets), authentication is trust on 127.0.0.1 only.
# Environment: RECALL_PG_DIR (default <checkout>/.pg), RECALL_PG_PORT (default: derived from
# the checkout path, the first free port from there; remembered in RECALL_PG_DIR/port),
# RECALL_PG_REPLICATION=1 (when the data directory is created: WAL for streaming replicas),
# RECALL_PG_CONF (lines added to postgresql.conf when the data directory is created; the Citus
# nodes of scripts/citus.sh load citus with it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
pgdir=${RECALL_PG_DIR:-$root/.pg}
data=$pgdir/data
logfile=$pgdir/server.log
replica=$pgdir/replica
replica_log=$pgdir/replica.log

log() { printf 'db: %s\n' "$*" >&2; }
die() { printf 'db: error: %s\n' "$*" >&2; exit 1; }

# as_pg runs a command as the server's OS user: postgres when we are root (initdb refuses root).
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

port_busy() { (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# our_port prints the port this checkout's server uses, choosing and remembering one if needed.
our_port() {
	if [ -n "${RECALL_PG_PORT:-}" ]; then
		echo "$RECALL_PG_PORT"
		return
	fi
	if [ -s "$pgdir/port" ]; then
		cat "$pgdir/port"
		return
	fi
	local base p
	# From the checkout's path (and the data directory's, when it is not the default), so
	# that the servers of one checkout start from different ports.
	local seed=$root
	[ "$pgdir" = "$root/.pg" ] || seed=$pgdir
	base=$((20000 + $(printf '%s' "$seed" | cksum | cut -d' ' -f1) % 20000))
	for p in $(seq "$base" $((base + 100))); do
		if ! port_busy "$p"; then
			mkdir -p "$pgdir"
			echo "$p" >"$pgdir/port"
			echo "$p"
			return
		fi
	done
	die "no free port in $base-$((base + 100)); set RECALL_PG_PORT to a free port"
}

admin_url() { echo "postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"; }

running() { [ -f "$data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$data" status >/dev/null 2>&1; }

init_cluster() {
	local port=$1 tmp=$data.initdb
	# A data directory is complete only once it has our marker; initdb writes into a temporary
	# directory that is renamed at the end, so an interrupted run leaves nothing half-made at $data.
	if [ -d "$data" ] && [ ! -f "$data/recall.ready" ]; then
		die "$data exists but is not a complete data directory (an earlier setup was interrupted?). Remove it with 'scripts/db.sh clean' (or 'make db-clean') and run 'make db' again."
	fi
	[ -d "$data" ] && return 0
	rm -rf "$tmp"
	mkdir -p "$pgdir"
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$pgdir"
		if ! runuser -u postgres -- test -w "$pgdir"; then
			die "user postgres cannot write $pgdir (a parent directory is not searchable?); set RECALL_PG_DIR to a directory it can reach"
		fi
	fi
	log "initdb $data"
	as_pg "$PGBIN/initdb" -D "$tmp" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$pgdir/initdb.log" 2>&1 \
		|| die "initdb failed; see $pgdir/initdb.log"
	# Tests and benchmarks trade durability for speed; the recall command's embedded server
	# (RECALL_PG_DURABLE=1) keeps PostgreSQL's defaults, so a crash loses nothing committed.
	local durability
	if [ "${RECALL_PG_DURABLE:-0}" = 1 ]; then
		durability="# durable: fsync, synchronous_commit and full_page_writes at their defaults"
	else
		durability=$'fsync = off\nsynchronous_commit = off\nfull_page_writes = off'
	fi
	# A quarter of the machine's memory for shared buffers, as for a server of its own (between
	# 128 MB and 8 GB), and half of it as the planner's estimate of the cache. At 1M memories
	# (19 GB) on a 24 GiB machine, 6 GB instead of 1 GB took the maximal statement's second
	# run after a cold start from 107.8 ms p50 to 70.2 ms (BENCHMARKS.md).
	# Replication needs WAL a standby can replay; without it, minimal WAL makes bulk loads
	# cheaper.
	local wal
	if [ "${RECALL_PG_REPLICATION:-0}" = 1 ]; then
		wal=$'wal_level = replica\nmax_wal_senders = 4\nmax_replication_slots = 4'
	else
		wal=$'wal_level = minimal\nmax_wal_senders = 0'
	fi
	local mem_mb sb_mb
	mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || echo 4096)
	sb_mb=$((mem_mb / 4))
	[ "$sb_mb" -lt 128 ] && sb_mb=128
	[ "$sb_mb" -gt 8192 ] && sb_mb=8192
	cat >>"$tmp/postgresql.conf" <<CONF

# recall: private development server for $root
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
max_connections = 300
shared_buffers = ${sb_mb}MB
work_mem = 32MB
maintenance_work_mem = 1GB
effective_cache_size = $((mem_mb / 2))MB
max_parallel_maintenance_workers = 1
jit = off
$durability
$wal
checkpoint_timeout = 30min
max_wal_size = 8GB
log_min_messages = warning
log_min_error_statement = panic
${RECALL_PG_CONF:-}
CONF
	touch "$tmp/recall.ready"
	as_pg chmod 0700 "$tmp"
	mv "$tmp" "$data"
}

# pg_start DATA LOG PORT WHAT starts the server of DATA on PORT, logging to LOG; on failure it
# shows the log's tail and says WHAT did not start.
pg_start() {
	as_pg touch "$2" 2>/dev/null || true
	if ! as_pg "$PGBIN/pg_ctl" -D "$1" -l "$2" -o "-p $3" -w -t 60 start >/dev/null; then
		tail -n 20 "$2" >&2 || true
		die "$4 did not start; the log above is from $2"
	fi
}

bootstrap_roles() {
	# Roles are cluster-wide; sql/roles.sql documents them and is shared with the test harness.
	psql -X -q -v ON_ERROR_STOP=1 -f "$root/sql/roles.sql" "$1" >/dev/null
}

cmd_start() {
	"$root/scripts/pg-install.sh"
	local port url
	port=$(our_port)
	url=$(admin_url "$port")
	init_cluster "$port"
	if running; then
		pg_isready -q -h 127.0.0.1 -p "$port" -t 10 \
			|| die "a server runs on $data but does not answer on port $port; see $logfile, or 'make db-stop' then 'make db'"
	else
		if port_busy "$port"; then
			die "port $port is in use by another process; stop it, or set RECALL_PG_PORT to a free port (and remove $pgdir/port)"
		fi
		log "starting PostgreSQL $PG_MAJOR on 127.0.0.1:$port ($data)"
		pg_start "$data" "$logfile" "$port" PostgreSQL
	fi
	bootstrap_roles "$url"
	echo "$url"
}

cmd_stop() {
	if running; then
		as_pg "$PGBIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null
		log "stopped"
	else
		log "not running"
	fi
}

replica_running() { [ -f "$replica/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$replica" status >/dev/null 2>&1; }

cmd_replica() {
	local port=${RECALL_PG_REPLICA_PORT:?set RECALL_PG_REPLICA_PORT to a port for the replica}
	case "${1:-start}" in
	start)
		running || die "the primary is not running: scripts/db.sh start first"
		if [ ! -f "$replica/recall.ready" ]; then
			rm -rf "$replica.tmp"
			log "pg_basebackup of 127.0.0.1:$(our_port) into $replica (slot recall_replica)"
			# -R writes the standby's primary_conninfo and standby.signal; -C -S makes the slot
			# that keeps the WAL it has not replayed yet.
			as_pg "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$(our_port)" -U postgres -D "$replica.tmp" \
				-R -X stream -c fast -C -S recall_replica >"$pgdir/basebackup.log" 2>&1 \
				|| die "pg_basebackup failed (was the server created with RECALL_PG_REPLICATION=1?); see $pgdir/basebackup.log"
			as_pg touch "$replica.tmp/recall.ready"
			mv "$replica.tmp" "$replica"
		fi
		if ! replica_running; then
			port_busy "$port" && die "port $port is in use; set RECALL_PG_REPLICA_PORT to a free port"
			pg_start "$replica" "$replica_log" "$port" "the replica"
			log "replica on 127.0.0.1:$port"
		fi
		admin_url "$port"
		;;
	stop)
		if replica_running; then
			as_pg "$PGBIN/pg_ctl" -D "$replica" -m fast -w stop >/dev/null
			log "replica stopped"
		fi
		;;
	*) die "usage: scripts/db.sh replica start|stop" ;;
	esac
}

case "${1:-start}" in
start) cmd_start ;;
url) admin_url "$(our_port)" ;;
status)
	if running; then echo "running: $(admin_url "$(our_port)")"; else echo "stopped"; exit 3; fi
	;;
stop) cmd_stop ;;
replica) cmd_replica "${2:-start}" ;;
clean)
	if replica_running; then as_pg "$PGBIN/pg_ctl" -D "$replica" -m immediate -w stop >/dev/null || true; fi
	cmd_stop
	rm -rf "$pgdir"
	log "removed $pgdir"
	;;
*) die "usage: scripts/db.sh start|url|status|stop|clean|replica" ;;
esac
