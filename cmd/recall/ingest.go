package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/records"
)

// ingest: recall ingest FILE... [--scope S] [--format F] [--batch N] [--no-extract]
func (m *Main) ingest(ctx context.Context, args []string) error {
	fs := m.Flags("ingest")
	scope := fs.String("scope", "default", "the scope set the rows belong to: one scope, or several joined by commas")
	format := fs.String("format", "auto", "auto, native, beir or turns (auto: each line's keys say which)")
	batch := fs.Int("batch", 500, "memories per transaction")
	fromLine := fs.Int("from-line", 0, "resume a stopped ingest of one FILE: write from this line on (the lines before are read only to number ids and places as the first run did)")
	noExtract := fs.Bool("no-extract", false, "do not extract entity names from texts")
	duplicates := fs.String("duplicates", "keep", "a note that restates one of its scope set (same text, kind and speaker): keep, skip or link")
	duplicateMatch := fs.String("duplicate-match", "text", "how --duplicates tells a restatement: text (the same text, case and punctuation aside) or words (also contractions, articles and fillers aside)")
	var ef cli.EngineFlags
	ef.RegisterEmbedder(fs)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall ingest FILE... [flags]\n\n"+
			"Reads JSONL: native records ({\"type\": \"source\"|\"memory\"|\"entity\"|\"relation\", ...}),\n"+
			"a BEIR corpus ({\"_id\", \"title\", \"text\", \"metadata\"}) or conversation turns\n"+
			"({\"speaker\", \"text\", \"date\"|\"time\"|\"timestamp\", \"conversation\"?, \"session\"?, \"position\"?,\n"+
			"\"id\"?, \"metadata\"?, \"expires_at\"?, \"valid_from\"?, \"valid_until\"?, \"supersedes\"?}). Each batch is one transaction: a malformed line stops the\n"+
			"ingest at that batch, with file:line. A file recall export wrote is restored as it was\n"+
			"written (nothing extracted again), and refused when cut before its end record.\n\n"+
			"Native record fields, by type (times: RFC 3339, YYYY-MM-DD[ HH:MM[:SS]], \"1:56 pm on 8 May, 2023\"):\n\n"+records.NativeFields()+"\n\nflags:")
		fs.PrintDefaults()
	}
	files, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no FILE", cli.ErrUsage)
	}
	if *fromLine < 0 || *fromLine > 1 && len(files) != 1 {
		return fmt.Errorf("%w: --from-line %d: want a line number from 1, with one FILE", cli.ErrUsage, *fromLine)
	}
	if *batch < 1 || *batch > 10000 {
		return fmt.Errorf("%w: --batch %d: want 1..10000", cli.ErrUsage, *batch)
	}
	emb, err := ef.Embedder(ctx)
	if err != nil {
		return err
	}
	c, err := m.Connect(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()
	e, err := recall.New(ctx, recall.Config{Pool: c.Runtime, Embedder: emb, FunctionalPredicates: ef.FunctionalPredicates()})
	if err != nil {
		return err
	}
	scopes := strings.Split(*scope, ",")
	user := recall.User{ID: "ingest", Read: scopes, Write: scopes}
	start := time.Now()
	// A first load into a dimension builds its vector index once at the end: much faster
	// than maintaining it row by row.
	has, err := e.HasVectorIndex(ctx)
	if err != nil {
		return err
	}
	opts := ingestOptions{scopes: scopes, fromLine: *fromLine, format: *format, batch: *batch, noExtract: *noExtract, deferIndex: !has, duplicates: *duplicates, duplicateMatch: *duplicateMatch}
	var total ingestSummary
	var ingestErr error
	for _, f := range files {
		s, err := m.ingestFile(ctx, e, user, f, opts)
		total.add(s)
		if err != nil {
			ingestErr = err
			break
		}
	}
	if opts.deferIndex && total.res.Memories > 0 {
		t := time.Now()
		fmt.Fprintf(m.Stderr, "building the vector index for %d-dimension embeddings...\n", e.Embedder().Dim())
		if err := e.EnsureVectorIndex(ctx); err != nil {
			return errors.Join(ingestErr, err)
		}
		fmt.Fprintf(m.Stderr, "vector index built in %v\n", time.Since(t).Round(time.Millisecond))
	}
	if ingestErr != nil {
		// What landed before the error is committed: say so, when anything did.
		if total.res.Sources+total.res.Memories+total.res.Entities > 0 {
			fmt.Fprintf(m.Stdout, "%s (stopped at the error below)\n", total.String(time.Since(start)))
		}
		return ingestErr
	}
	fmt.Fprintln(m.Stdout, total.String(time.Since(start)))
	return nil
}

type ingestOptions struct {
	scopes         []string
	fromLine       int
	format         string
	batch          int
	noExtract      bool
	deferIndex     bool
	duplicates     string
	duplicateMatch string
}

type ingestSummary struct {
	files, lines int
	res          recall.WriteResult
}

func (s *ingestSummary) add(o ingestSummary) {
	s.files += o.files
	s.lines += o.lines
	s.res.Add(o.res)
}

func (s ingestSummary) String(d time.Duration) string {
	rate := float64(s.res.Memories) / max(d.Seconds(), 1e-9)
	dups := ""
	if s.res.Duplicates > 0 {
		dups = fmt.Sprintf(", %d duplicates", s.res.Duplicates)
	}
	return fmt.Sprintf("ingested %d files, %d lines in %v (%.0f memories/s): %d memories (%d updated%s), %d sources, %d entities given, %d extracted, %d mentions, %d relations",
		s.files, s.lines, d.Round(time.Millisecond), rate, s.res.Memories, s.res.Updated, dups, s.res.Sources, s.res.Entities, s.res.Extracted, s.res.Mentions, s.res.Relations)
}

func (m *Main) ingestFile(ctx context.Context, e *recall.Engine, user recall.User, name string, o ingestOptions) (ingestSummary, error) {
	s := ingestSummary{files: 1}
	var r io.Reader
	var size int64
	if name == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return s, err
		}
		defer f.Close() //nolint:errcheck // read only
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		r = f
	}
	bar := progress.New(m.Stderr, name, size, true)
	defer bar.Finish()
	err := m.ingestReader(ctx, e, user, r, name, o, &s, bar)
	return s, err
}

func (m *Main) ingestReader(ctx context.Context, e *recall.Engine, user recall.User, r io.Reader, name string, o ingestOptions, s *ingestSummary, bar *progress.Bar) error {
	proto := recall.Batch{Scopes: o.scopes, NoExtract: o.noExtract, DeferVectorIndex: o.deferIndex, Duplicates: o.duplicates, DuplicateMatch: o.duplicateMatch}
	res, lines, err := records.LoadStaged(ctx, r, name, records.Format(o.format), o.batch, proto, recall.Stage(e, user),
		func(_ int, read int64, _ recall.WriteResult) { bar.Set(read) }, records.Resume{From: o.fromLine})
	var le *records.LineError
	if errors.As(err, &le) && le.Written > 0 && name != "-" {
		err = fmt.Errorf("%w\n(lines through %d are written: fix the line, then resume with --from-line %d)", err, le.Written, le.Written+1)
	}
	s.lines += lines
	s.res.Add(res)
	return err
}
