#!/usr/bin/env bash
# citus.sh: a Citus cluster for this checkout: a coordinator and two workers, each a private
# PostgreSQL 15 server (scripts/db.sh) on loopback with citus, pgvector and pg_trgm.
#
#   scripts/citus.sh available  succeeds when Citus is installed or its source is there (else
#                             says why on stderr: make test then skips the Citus tests)
#   scripts/citus.sh install  build and install Citus from its source when it is not installed
#   scripts/citus.sh start    install, then init and start the three nodes; prints the
#                             coordinator's admin URL last (the workers' follow "workers:" on
#                             stderr; scripts/citus.sh workers prints them)
#   scripts/citus.sh url      the coordinator's admin URL
#   scripts/citus.sh workers  the workers' admin URLs, one a line
#   scripts/citus.sh status   whether each node runs
#   scripts/citus.sh stop     stop the nodes
#   scripts/citus.sh clean    stop the nodes and delete their data (the build stays)
#
# Citus is not packaged for Debian. Its source is the release tarball (AGPL-3.0), read from
# RECALL_CITUS_SRC or ../shared/citus/citus-13.2.2.tar.gz beside the checkout, checked against
# its SHA-256, and never copied into the repository. The build happens in .citus/build (kept:
# a second install costs nothing) and `make install` puts citus.so and its extension files in
# PostgreSQL's directories, outside dpkg, as pgvector's are (docs/DEVELOPMENT.md says where,
# and how to remove them). Its build packages are installed with apt, said first.
#
# A node is a database server; Citus's metadata is per database, so a database used on the
# cluster is created on every node and its workers registered on the coordinator (the test
# harness does it: internal/testkit/testdb/citus.go).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
CITUS_VERSION=13.2.2
CITUS_SHA256=dd2453caec20a830e5e63f1def5c5a98cb6f57ae510407cdcd800916fcdab430
dir=${RECALL_CITUS_DIR:-$root/.citus}
nodes=(coordinator worker1 worker2)

log() { printf 'citus: %s\n' "$*" >&2; }
die() { printf 'citus: error: %s\n' "$*" >&2; exit 1; }

citus_src=${RECALL_CITUS_SRC:-$root/../shared/citus/citus-$CITUS_VERSION.tar.gz}

# source_tarball prints the path of Citus's source, or fails saying where it looked.
source_tarball() {
	[ -f "$citus_src" ] || die "no Citus source at $citus_src (set RECALL_CITUS_SRC to citus-$CITUS_VERSION.tar.gz)"
	echo "$citus_src"
}

installed() {
	local ctl=/usr/share/postgresql/$PG_MAJOR/extension/citus.control
	[ -f "$PGBIN/../lib/citus.so" ] && [ -f "$ctl" ] && grep -q "^default_version = '${CITUS_VERSION%.*}" "$ctl"
}

cmd_install() {
	"$root/scripts/pg-install.sh"
	installed && return 0
	local src sum
	src=$(source_tarball)
	sum=$(sha256sum "$src" | cut -d' ' -f1)
	[ "$sum" = "$CITUS_SHA256" ] || die "$src: SHA-256 $sum, want $CITUS_SHA256"
	[ "$(id -u)" -eq 0 ] || die "installing Citus needs root (apt-get, make install); run 'sudo make citus' once"
	# The build packages: the server's headers (pg-install.sh pins them to the server's
	# version) and the compression and Kerberos libraries Citus links.
	local missing=()
	for p in liblz4-dev libzstd-dev libkrb5-dev build-essential; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ -d "/usr/include/postgresql/$PG_MAJOR/server" ] || missing+=("postgresql-server-dev-$PG_MAJOR")
	if [ ${#missing[@]} -gt 0 ]; then
		log "will install with apt-get: ${missing[*]}"
		apt-get update -qq >/dev/null || die "apt-get update failed: is Debian's archive reachable?"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
			|| die "apt-get install ${missing[*]} failed"
	fi
	local build=$dir/build src_dir=$dir/build/citus-$CITUS_VERSION
	if [ ! -f "$src_dir/.built" ]; then
		rm -rf "$src_dir"
		mkdir -p "$build"
		tar -xzf "$src" -C "$build"
		[ -d "$src_dir" ] || die "the tarball did not hold citus-$CITUS_VERSION/"
		log "building Citus $CITUS_VERSION in $src_dir (a few minutes on two cores; log: $build/build.log)"
		(cd "$src_dir" && ./configure --without-libcurl PG_CONFIG="$PGBIN/pg_config" && make -j"$(nproc)") >"$build/build.log" 2>&1 \
			|| { tail -n 20 "$build/build.log" >&2; die "the Citus build failed; see $build/build.log"; }
		touch "$src_dir/.built"
	fi
	(cd "$src_dir" && make install) >"$build/install.log" 2>&1 || die "make install of Citus failed; see $build/install.log"
	installed || die "Citus $CITUS_VERSION is still not installed after make install"
	log "Citus $CITUS_VERSION installed"
}

# node NAME CMD...: scripts/db.sh CMD for node NAME, with its own data directory.
# Three servers share the machine: each takes a sixteenth of its memory for shared buffers
# (db.sh's default, a quarter, is for a server alone) and keeps at most 2 GB of WAL (db.sh's
# 8 GB, three times over beside the single server, left too little disk to load 1M memories).
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || echo 4096)
node() {
	local name=$1
	shift
	RECALL_PG_DIR=$dir/$name RECALL_PG_CONF="shared_preload_libraries = 'citus'
shared_buffers = $((mem_mb / 16 > 128 ? mem_mb / 16 : 128))MB
effective_cache_size = $((mem_mb / 6))MB
max_wal_size = 2GB
max_prepared_transactions = 100" "$root/scripts/db.sh" "$@"
}

cmd_start() {
	cmd_install
	local url workers=()
	for n in "${nodes[@]:1}"; do
		workers+=("$(node "$n" start)")
	done
	url=$(node coordinator start)
	log "workers: ${workers[*]}"
	echo "$url"
}

case "${1:-start}" in
available)
	if installed || [ -f "$citus_src" ]; then exit 0; fi
	log "no Citus installed and no source at $citus_src: the Citus tests are skipped"
	exit 1
	;;
install) cmd_install ;;
start) cmd_start ;;
url) node coordinator url ;;
workers) for n in "${nodes[@]:1}"; do node "$n" url; done ;;
status) for n in "${nodes[@]}"; do printf '%s: %s\n' "$n" "$(node "$n" status || true)"; done ;;
stop) for n in "${nodes[@]}"; do node "$n" stop; done ;;
clean) for n in "${nodes[@]}"; do node "$n" clean; done ;;
*) die "usage: scripts/citus.sh install|start|url|workers|status|stop|clean" ;;
esac
