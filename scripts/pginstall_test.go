package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The fake tools pg-install.sh calls: apt-get, apt-cache and dpkg-query answer from the files
// FAKE_ARCHIVE ("package version" lines, newest last), FAKE_INSTALLED (same) and
// FAKE_UPGRADES ("package old new": what apt would upgrade for an unpinned install), and
// apt-get logs each call to FAKE_LOG. apt-get install lays out what postgresql-server-dev
// installs under RECALL_PG_ROOT; make install puts pgvector's control file there.
var fakes = map[string]string{
	"id":          `echo 0`,
	"dpkg-source": `exit 0`,
	"dpkg-query": `pkg=${@: -1}
v=$(awk -v p="$pkg" '$1 == p {print $2}' "$FAKE_INSTALLED")
[ -n "$v" ] || exit 1
echo "install ok installed $v"`,
	"apt-cache": `[ "$1" = madison ] || exit 1
awk -v p="$2" '$1 == p {printf " %s | %s | http://deb.debian.org/debian bookworm/main amd64 Packages\n", $1, $2}' "$FAKE_ARCHIVE"`,
	"make": `case " $* " in *" install "*) d=$RECALL_PG_ROOT/usr/share/postgresql/15/extension; mkdir -p "$d"; echo "default_version = '0.8.0'" >"$d/vector.control" ;; esac`,
	"apt-get": `echo "apt-get $*" >>"$FAKE_LOG"
sim=0; cmd=; pkgs=()
while [ $# -gt 0 ]; do
	case $1 in
	-o) shift ;;
	-s) sim=1 ;;
	-*) ;;
	*) if [ -z "$cmd" ]; then cmd=$1; else pkgs+=("$1"); fi ;;
	esac
	shift
done
case $cmd in
update) exit 0 ;;
source) mkdir -p pgvector-0.8.0; exit 0 ;;
install)
	unpinned=0
	for p in "${pkgs[@]}"; do
		name=${p%%=*}
		if [ "$name" = "$p" ]; then
			unpinned=1
			v=$(awk -v p="$name" '$1 == p {v = $2} END {print v}' "$FAKE_ARCHIVE")
		else
			v=${p#*=}
			awk -v p="$name" -v v="$v" '$1 == p && $2 == v {f = 1} END {exit !f}' "$FAKE_ARCHIVE" \
				|| { echo "E: Version '$v' for '$name' was not found"; exit 100; }
		fi
		[ -n "$v" ] || { echo "E: Unable to locate package $name"; exit 100; }
		[ $sim = 1 ] && echo "Inst $name ($v Debian:12.12/stable [amd64])"
	done
	if [ $sim = 1 ] && [ $unpinned = 1 ] && [ -f "$FAKE_UPGRADES" ]; then
		while read -r name old new; do echo "Inst $name [$old] ($new Debian-Security:12/stable-security [amd64])"; done <"$FAKE_UPGRADES"
	fi
	if [ $sim = 0 ]; then
		mkdir -p "$RECALL_PG_ROOT/usr/include/postgresql/15/server"
		printf '#!/bin/sh\n' >"$RECALL_PG_ROOT/usr/lib/postgresql/15/bin/pg_config"
		chmod +x "$RECALL_PG_ROOT/usr/lib/postgresql/15/bin/pg_config"
	fi
	;;
*) exit 1 ;;
esac`,
}

type fakeMachine struct {
	root, log string
	env       []string
}

// newFakeMachine is a root with PostgreSQL 15 and pg_trgm but no pgvector and no server
// headers, the machine's debian.sources, and the apt sources list an earlier version of the
// script left behind.
func newFakeMachine(t *testing.T, archive, installed, upgrades string) *fakeMachine {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	root := filepath.Join(dir, "root")
	files := map[string]string{
		"root/usr/lib/postgresql/15/bin/postgres":                "",
		"root/usr/lib/postgresql/15/bin/initdb":                  "",
		"root/usr/share/postgresql/15/extension/pg_trgm.control": "",
		"root/etc/apt/sources.list.d/debian.sources":             "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n",
		"root/etc/apt/sources.list.d/recall-trixie-src.sources":  "Types: deb-src\nSuites: trixie\n",
		"archive": archive, "installed": installed,
	}
	if upgrades != "" {
		files["upgrades"] = upgrades
	}
	for name, body := range fakes {
		files["bin/"+name] = "#!/usr/bin/env bash\n" + body + "\n"
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := &fakeMachine{root: root, log: filepath.Join(dir, "apt.log")}
	m.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "RECALL_PG_ROOT="+root,
		"FAKE_LOG="+m.log, "FAKE_ARCHIVE="+filepath.Join(dir, "archive"),
		"FAKE_INSTALLED="+filepath.Join(dir, "installed"), "FAKE_UPGRADES="+filepath.Join(dir, "upgrades"))
	return m
}

func (m *fakeMachine) run(t *testing.T) (stderr string, aptCalls []string) {
	t.Helper()
	cmd := exec.Command("bash", "pg-install.sh")
	cmd.Env = m.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pg-install.sh: %v\n%s", err, out)
	}
	log, err := os.ReadFile(m.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), strings.Split(strings.TrimSpace(string(log)), "\n")
}

const bookworm = `postgresql-server-dev-15 15.18-0+deb12u1
postgresql-server-dev-15 15.20-0+deb12u1
libpq-dev 15.18-0+deb12u1
libpq-dev 15.20-0+deb12u1
dpkg-dev 1.21.23
build-essential 12.9
`

// checkSources: trixie's source list is used from a directory of the script's own, never
// written among the machine's apt sources, and the list an earlier version left is gone.
func (m *fakeMachine) checkSources(t *testing.T, calls []string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(m.root, "etc/apt/sources.list.d"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "debian.sources" {
		t.Errorf("apt sources after the install: %v, want debian.sources alone", entries)
	}
	// Every apt call that reads trixie (its update and the source download) uses lists of its
	// own, and there is one of each.
	var update, source int
	for _, c := range calls {
		if !strings.Contains(c, " source ") && !strings.Contains(c, "trixie") {
			continue
		}
		if strings.Contains(c, " source ") {
			source++
		} else if strings.HasSuffix(c, " update -qq") {
			update++
		}
		if !strings.Contains(c, "Dir::Etc::SourceList=/") || strings.Contains(c, "SourceList="+m.root) ||
			!strings.Contains(c, "Dir::Etc::SourceParts=") || !strings.Contains(c, "Dir::State::Lists=") {
			t.Errorf("trixie's source list is not private to the script: %s", c)
		}
	}
	if update != 1 || source != 1 {
		t.Errorf("%d updates and %d source downloads of trixie, want 1 and 1: %v", update, source, calls)
	}
}

// TestPgInstallPinsAndSays: with the installed PostgreSQL's version still in the archive, the
// build packages are pinned to it (nothing installed is upgraded), and what apt will
// install is printed before it is installed.
func TestPgInstallPinsAndSays(t *testing.T) {
	t.Parallel()
	m := newFakeMachine(t, bookworm, "postgresql-15 15.18-0+deb12u1\nlibpq5 15.18-0+deb12u1\ndpkg 1.21.23\n", "")
	out, calls := m.run(t)
	var install string
	for _, c := range calls {
		if strings.HasPrefix(c, "apt-get install -y") {
			install = c
		}
	}
	for _, want := range []string{"postgresql-server-dev-15=15.18-0+deb12u1", "libpq-dev=15.18-0+deb12u1", "dpkg-dev=1.21.23", "build-essential"} {
		if !strings.Contains(install, " "+want) {
			t.Errorf("install %q lacks %s", install, want)
		}
	}
	said := strings.Index(out, "will install: postgresql-server-dev-15 libpq-dev dpkg-dev build-essential")
	did := strings.Index(out, "pg-install: apt-get install ")
	if said < 0 || did < said {
		t.Errorf("the plan is not printed before the install:\n%s", out)
	}
	if strings.Contains(out, "will upgrade") {
		t.Errorf("pinned install announces upgrades:\n%s", out)
	}
	if !strings.Contains(out, "pgvector 0.8.0 installed") || !strings.Contains(out, "removed "+m.root+"/etc/apt/sources.list.d/recall-trixie-src.sources") {
		t.Errorf("output:\n%s", out)
	}
	m.checkSources(t, calls)
}

// TestPgInstallSaysUpgrades: when the archive no longer has the installed version, the
// unpinned install goes ahead, and the upgrades it brings are printed first.
func TestPgInstallSaysUpgrades(t *testing.T) {
	t.Parallel()
	m := newFakeMachine(t, bookworm, "postgresql-15 15.14-0+deb12u1\nlibpq5 15.14-0+deb12u1\ndpkg 1.21.23\n",
		"postgresql-15 15.14-0+deb12u1 15.20-0+deb12u1\nlibpq5 15.14-0+deb12u1 15.20-0+deb12u1\n")
	out, calls := m.run(t)
	said := strings.Index(out, "will upgrade (the archive no longer has the installed versions they need): postgresql-15 15.14-0+deb12u1 -> 15.20-0+deb12u1, libpq5 15.14-0+deb12u1 -> 15.20-0+deb12u1")
	did := strings.Index(out, "pg-install: apt-get install ")
	if said < 0 || did < said {
		t.Errorf("the upgrades are not printed before the install:\n%s", out)
	}
	var install string
	for _, c := range calls {
		if strings.HasPrefix(c, "apt-get install -y") {
			install = c
		}
	}
	if !strings.Contains(install, " postgresql-server-dev-15 ") || !strings.Contains(install, " dpkg-dev=1.21.23") {
		t.Errorf("install %q: want server-dev unpinned, dpkg-dev still pinned", install)
	}
	m.checkSources(t, calls)
}
