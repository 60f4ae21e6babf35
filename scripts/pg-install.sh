#!/usr/bin/env bash
# pg-install.sh: make sure PostgreSQL 15 (with contrib: pg_trgm) and pgvector >= 0.8
# are installed on this Debian machine. Idempotent and quiet when all is in place.
#
# Debian 12 ships PostgreSQL 15 but no pgvector package for it, so pgvector is built
# from Debian trixie's source package (it builds against postgresql-server-dev-15).
#
# It touches as little of the system as it can: before installing it prints what apt will
# install and what it would upgrade; the build packages are pinned to the versions of what
# is installed (postgresql-server-dev-15 to postgresql-15's, libpq-dev to libpq5's, dpkg-dev
# to dpkg's) when the archive still has them; trixie's source list lives in a temporary apt
# directory, never among the machine's apt sources.
#
# RECALL_PG_ROOT (default empty) prefixes every system path it reads or writes; the tests
# run it against a fake root with fake apt tools.
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
PGVECTOR_MIN=${PGVECTOR_MIN:-0.8.0}
sysroot=${RECALL_PG_ROOT:-}
PGBIN=$sysroot/usr/lib/postgresql/$PG_MAJOR/bin

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

# installed_version PKG: the version of PKG installed on this machine, or nothing.
installed_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null | awk '$3 == "installed" {print $4}'
}

# matching PKG SIBLING: PKG pinned to the installed version of SIBLING (built from the same
# source) when the archive offers it at that version, so installing PKG upgrades nothing.
matching() {
	local v
	v=$(installed_version "$2")
	if [ -n "$v" ] && apt-cache madison "$1" 2>/dev/null | awk -F' *[|] *' -v v="$v" '$2 == v {f = 1} END {exit !f}'; then
		echo "$1=$v"
	else
		echo "$1"
	fi
}

# plan PKG...: apt's simulation of installing PKG..., or failure.
plan() {
	apt-get install -s --no-install-recommends "$@" 2>&1
}

# say_plan: prints what a simulation (on stdin) installs and upgrades.
say_plan() {
	local sim new upgrades
	sim=$(cat)
	new=$(awk '/^Inst / && $3 !~ /^\[/ {printf "%s%s", sep, $2; sep = " "}' <<<"$sim")
	upgrades=$(awk '/^Inst / && $3 ~ /^\[/ {v = $3; gsub(/[][]/, "", v); w = $4; sub(/^\(/, "", w); printf "%s%s %s -> %s", sep, $2, v, w; sep = ", "}' <<<"$sim")
	[ -n "$new" ] && log "will install: $new"
	[ -n "$upgrades" ] && log "will upgrade (the archive no longer has the installed versions they need): $upgrades"
	return 0
}

# apt_install PKG...: installs PKG... (pinned where pinned), saying first what it will do.
# When the pinned set cannot be installed as a whole, the unpinned one is tried.
apt_install() {
	need_root "$*"
	apt_update
	local sim pkgs=("$@")
	if ! sim=$(plan "${pkgs[@]}"); then
		pkgs=("${@%%=*}")
		sim=$(plan "${pkgs[@]}") || die "apt-get cannot install ${pkgs[*]}: $sim"
	fi
	say_plan <<<"$sim"
	log "apt-get install ${pkgs[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null \
		|| die "apt-get install ${pkgs[*]} failed"
}

# version_ge A B: true when version A >= version B (dotted numbers).
version_ge() {
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# An earlier version of this script left trixie's source list among the machine's apt
# sources; it goes (when we may remove it).
legacy=$sysroot/etc/apt/sources.list.d/recall-trixie-src.sources
if [ -f "$legacy" ] && [ -w "$(dirname "$legacy")" ]; then
	rm -f "$legacy"
	log "removed $legacy (left by an earlier version of this script)"
fi

# 1. The server and contrib (pg_trgm ships in postgresql-15 on Debian 12).
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/initdb" ]; then
	apt_install "postgresql-$PG_MAJOR" "postgresql-client-$PG_MAJOR"
fi
if [ ! -x "$PGBIN/postgres" ]; then
	die "$PGBIN/postgres is still missing after install"
fi
sharedir=$sysroot/usr/share/postgresql/$PG_MAJOR
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
if [ ! -x "$PGBIN/pg_config" ] || [ ! -d "$sysroot/usr/include/postgresql/$PG_MAJOR/server" ]; then
	apt_install "$(matching "postgresql-server-dev-$PG_MAJOR" "postgresql-$PG_MAJOR")" \
		"$(matching libpq-dev libpq5)" "$(matching dpkg-dev dpkg)" build-essential
fi
if ! command -v dpkg-source >/dev/null 2>&1; then
	apt_install "$(matching dpkg-dev dpkg)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# trixie's deb-src in an apt directory of our own (lists and caches too), on the machine's mirror.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\{0,1\}$/\1/p' "$sysroot/etc/apt/sources.list.d/debian.sources" 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$work/apt/parts" "$work/apt/lists/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/apt/trixie.list"
srcapt=(-o "Dir::Etc::SourceList=$work/apt/trixie.list" -o "Dir::Etc::SourceParts=$work/apt/parts"
	-o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
log "apt-get update (trixie's deb-src, in $work/apt only)"
apt-get "${srcapt[@]}" update -qq >/dev/null || die "apt-get update of trixie's deb-src ($mirror) failed"
(
	cd "$work"
	apt-get "${srcapt[@]}" source -qq pgvector >/dev/null 2>&1 || die "apt-get source pgvector failed (trixie's deb-src on $mirror)"
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
