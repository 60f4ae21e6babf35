package main

import (
	"cmp"
	"context"
	"fmt"
	"runtime/debug"

	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/migrations"
)

// version is the release this code is; a build from a checkout says "-dev".
const version = "0.1.0-dev"

// commit is the commit the binary was built from when the build says so (make build and
// make install: -ldflags "-X main.commit=..."); else go build's VCS stamp, when it made one.
var commit string

// buildInfo reads the module's version and the commit the binary was built from: the one
// the build named (commit), else go build's VCS stamp.
func buildInfo() (module, rev string) {
	module, rev = "(unknown)", commit
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return module, cmp.Or(rev, "(unknown)")
	}
	module = bi.Main.Path + " " + bi.Main.Version
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = cmp.Or(rev, s.Value)
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return module, "(unknown: build with make build or make install)"
	}
	if modified {
		rev += " (with uncommitted changes)"
	}
	return module, rev
}

// versionCmd: recall version
func (m *Main) versionCmd(_ context.Context, args []string) error {
	fs := m.Flags("version")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall version\n\nPrints recall's version, the module and commit it was built from, and the schema it migrates to.")
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: version takes no arguments", cli.ErrUsage)
	}
	module, rev := buildInfo()
	h := migrations.Hash()
	fmt.Fprintf(m.Stdout, "recall %s\nmodule: %s\ncommit: %s\nschema: migration %d, schema hash %s\n", version, module, rev, migrations.Latest(), h[:12])
	return nil
}
