package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/records"
)

// export: recall export --scope S [--out FILE] [--embeddings]
func (m *Main) export(ctx context.Context, args []string) error {
	fs := m.Flags("export")
	scope := fs.String("scope", "", "the scope set to export: one scope, or several joined by commas (exactly that set)")
	out := fs.String("out", "-", "the file to write (-: standard output); written beside it and renamed when whole")
	embeddings := fs.Bool("embeddings", false, "write each memory's embedding (without: a restore embeds the texts again)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall export --scope S [--out FILE] [--embeddings]\n\n"+
			"Writes one scope set as native JSONL records, read in one snapshot: an export header,\n"+
			"its sources, entities (extracted ones too), memories (times, validity, expiry,\n"+
			"supersession, duplicates, summaries' coverage, metadata, mentions), relations (co-\n"+
			"mentions too), and an export_end record with the counts. `recall ingest FILE --scope S`\n"+
			"reads it back into the same rows, and refuses a file cut before its end. Access counts\n"+
			"are not exported.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		fs.Usage()
		return fmt.Errorf("%w: no positional arguments", cli.ErrUsage)
	case *scope == "":
		return fmt.Errorf("%w: --scope: name the scope set to export", cli.ErrUsage)
	}
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	w, commit, abort, err := m.exportTarget(*out)
	if err != nil {
		return err
	}
	scopes := strings.Split(*scope, ",")
	start := time.Now()
	enc := records.NewEncoder(w)
	sum, err := e.Export(ctx, recall.User{ID: "export", Read: scopes}, recall.ExportOptions{Scopes: scopes, Embeddings: *embeddings},
		func(r records.Record) error { return enc.Encode(r) })
	if err == nil {
		err = enc.Flush()
	}
	if err == nil {
		err = commit()
	}
	if err != nil {
		abort()
		return flagError(err)
	}
	fmt.Fprintf(m.Stderr, "exported scope set %s as of %s in %v: %d sources, %d entities, %d memories, %d relations\n",
		strings.Join(sum.Scopes, ","), sum.At.UTC().Format(time.RFC3339), time.Since(start).Round(time.Millisecond),
		sum.Sources, sum.Entities, sum.Memories, sum.Relations)
	if n := len(sum.MergedSupersessions); n > 0 {
		fmt.Fprintf(m.Stderr, "note: %d memories superseded others at several times; each keeps the latest (%s)\n", n, strings.Join(sum.MergedSupersessions[:min(n, 10)], ", "))
	}
	return nil
}

// exportTarget opens where an export goes: standard output, or a temporary file beside out
// that commit renames to out once it is whole and abort removes, so a failed export leaves no
// file that looks whole.
func (m *Main) exportTarget(out string) (w io.Writer, commit func() error, abort func(), err error) {
	if out == "-" {
		return m.Stdout, func() error { return nil }, func() {}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".partial-*")
	if err != nil {
		return nil, nil, nil, err
	}
	commit = func() error {
		if err := errors.Join(f.Sync(), f.Close()); err != nil {
			return err
		}
		return os.Rename(f.Name(), out)
	}
	abort = func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
	return f, commit, abort, nil
}
