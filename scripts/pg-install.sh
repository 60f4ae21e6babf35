#!/usr/bin/env bash
# pg-install.sh: make sure PostgreSQL 15 (with contrib: pg_trgm) and pgvector >= 0.8
# are installed on this Debian machine. Idempotent and quiet when all is in place.
#
# Debian 12 ships PostgreSQL 15 but no pgvector package for it, so pgvector is built
# from Debian trixie's source package (it builds against postgresql-server-dev-15).
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PGVECTOR_MIN=${PGVECTOR_MIN:-0.8.0}
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin

log() { printf 'pg-install: %s\n' "$*" >&2; }
die() { printf 'pg-install: error: %s\n' "$*" >&2; exit 1; }

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		die "installing $1 needs root (apt-get); run 'sudo make db' once, or install $1 yourself"
	fi
}

apt_updated=0
apt_update() {
	if [ "$apt_updated" -eq 0 ]; then
		log "apt-get update"
		apt-get update -qq >/dev/null || die "apt-get update failed: is Debian's archive reachable?"
		apt_updated=1
	fi
}

apt_install() {
	need_root "$*"
	apt_update
	log "apt-get install $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
		|| die "apt-get install $* failed"
}

# version_ge A B: true when version A >= version B (dotted numbers).
version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# 1. The server and contrib (pg_trgm ships in postgresql-15 on Debian 12).
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/initdb" ]; then
	apt_install "postgresql-$PG_MAJOR" "postgresql-client-$PG_MAJOR"
fi
if [ ! -x "$PGBIN/postgres" ]; then
	die "$PGBIN/postgres is still missing after install"
fi
sharedir=/usr/share/postgresql/$PG_MAJOR
if [ ! -f "$sharedir/extension/pg_trgm.control" ]; then
	apt_install "postgresql-contrib"
fi

# 2. pgvector, built from source when missing or too old.
installed_vector() {
	local ctl="$sharedir/extension/vector.control"
	[ -f "$ctl" ] || return 1
	sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ctl"
}
have=$(installed_vector || true)
if [ -n "$have" ] && version_ge "$have" "$PGVECTOR_MIN"; then
	exit 0
fi

log "pgvector ${have:-missing}; building >= $PGVECTOR_MIN from Debian trixie's source package"
need_root pgvector
if ! command -v pg_config >/dev/null 2>&1 || [ ! -d "/usr/include/postgresql/$PG_MAJOR/server" ]; then
	apt_install "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev
fi
if ! command -v dpkg-source >/dev/null 2>&1; then
	apt_install dpkg-dev
fi

# A deb-src line for trixie using the same mirror as the machine's own sources.
srclist=/etc/apt/sources.list.d/recall-trixie-src.sources
if [ ! -f "$srclist" ]; then
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\{0,1\}$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
	mirror=${mirror:-http://deb.debian.org/debian}
	cat >"$srclist" <<SRC
Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_updated=0
fi
apt_update

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
	cd "$work"
	apt-get source -qq pgvector >/dev/null 2>&1 || die "apt-get source pgvector failed (deb-src for trixie in $srclist)"
	dir=$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -n1)
	[ -n "$dir" ] || die "no pgvector source directory after apt-get source"
	cd "$dir"
	log "building $(basename "$dir")"
	make -s PG_CONFIG="$PGBIN/pg_config" OPTFLAGS="" >/dev/null 2>&1 \
		|| make PG_CONFIG="$PGBIN/pg_config" OPTFLAGS="" >&2 \
		|| die "pgvector build failed"
	make -s PG_CONFIG="$PGBIN/pg_config" install >/dev/null || die "pgvector install failed"
)
have=$(installed_vector || true)
version_ge "${have:-0}" "$PGVECTOR_MIN" || die "pgvector $have installed, need >= $PGVECTOR_MIN"
log "pgvector $have installed"
