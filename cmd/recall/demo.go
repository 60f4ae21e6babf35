package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/progress"
)

//go:embed demo/corpus.jsonl
var demoCorpus []byte

// demoQuestions exercise every lane the default runs: names (mention), a source title
// (title), a time window (temporal), and plain words (BM25, vector, context). The graph lane
// is off by default (weight 0: eval/results/graph-off.md).
var demoQuestions = []struct {
	q           string
	label       string
	from, until string
}{
	{q: "How much money did the council budget for the lighthouse roof?"},
	{q: "Who did Tomas Lindqvist help with the lighthouse?"},
	{q: "What happened in the harbor during the storm?", from: "2024-11-01", until: "2024-12-01"},
	{q: "Greta's bakery notebook: how are cardamom buns made?"},
	{q: "What did I see on Gull Island?", label: "Ravi Menon"},
	{q: "When does the lighthouse museum open?"},
}

const demoScope = "demo"

// demoMarkerScope holds the marker of the corpus loaded, out of the demo's sight.
const demoMarkerScope = "demo:loaded"

// demoLoadVersion changes when loading the same corpus gives other rows.
const demoLoadVersion = "2"

// demo: recall demo — load the demo corpus into the embedded database (once) and answer a
// few questions with their provenance.
func (m *Main) demo(ctx context.Context, args []string) error {
	fs := m.Flags("demo")
	budget := fs.Int("budget", 120, "token budget of each answer")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall demo [--budget N]\n\n"+
			"Loads a small corpus (a year and a half in a fishing town: people, places, dates) into\n"+
			"scope \"demo\" of the database (the embedded one unless RECALL_DATABASE_URL is set), once,\n"+
			"then recalls a few questions and prints each pack with the lanes that found its items.")
		fs.PrintDefaults()
	}
	if pos, err := cli.Parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return fmt.Errorf("%w: demo takes no arguments", cli.ErrUsage)
	}
	start := time.Now()
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	user := recall.User{ID: "demo", Read: []string{demoScope}, Write: []string{demoScope}}
	// The marker names the corpus and the version of how it is loaded (entity extraction):
	// either changing reloads it.
	sum := sha256.Sum256(append([]byte(demoLoadVersion), demoCorpus...))
	marker := "demo-corpus-" + hex.EncodeToString(sum[:6])
	// The corpus is loaded when its marker memory is there, in a scope of its own that no demo
	// question reads. An older corpus's memories are deleted first, as the demo user (its
	// sources and given entities are written again).
	markers := recall.User{ID: "demo", Read: []string{demoMarkerScope}, Write: []string{demoMarkerScope}}
	loaded, err := e.MemoryIDs(ctx, markers, nil)
	if err != nil {
		return err
	}
	if slices.Contains(loaded, marker) {
		fmt.Fprintf(m.Stdout, "demo corpus already loaded (%s); %v to get here\n\n", marker, time.Since(start).Round(time.Millisecond))
	} else {
		ids, err := e.MemoryIDs(ctx, user, nil)
		if err != nil {
			return err
		}
		if _, err := e.Delete(ctx, user, nil, ids); err != nil {
			return err
		}
		s := ingestSummary{files: 1}
		bar := progress.New(m.Stderr, "demo corpus", int64(len(demoCorpus)), true)
		if err := m.ingestReader(ctx, e, user, bytes.NewReader(demoCorpus), "demo/corpus.jsonl", ingestOptions{format: "native", batch: 500}, &s, bar); err != nil {
			return err
		}
		bar.Finish()
		if _, err := e.Write(ctx, markers, recall.Batch{Prune: "demo-corpus-", Memories: []recall.Memory{{ID: marker, Kind: "observation",
			Text: "The recall demo corpus " + marker + " is loaded."}}}); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "loaded the demo corpus: %s\n\n", s.String(time.Since(start)))
	}
	for _, q := range demoQuestions {
		u := user
		u.Label = q.label
		var opts recall.Options
		if q.from != "" {
			opts.WindowStart, _ = time.Parse(time.DateOnly, q.from)
			opts.WindowEnd, _ = time.Parse(time.DateOnly, q.until)
		}
		p, err := e.Recall(ctx, u, q.q, *budget, &opts)
		if err != nil {
			return err
		}
		if q.label != "" {
			fmt.Fprintf(m.Stdout, "(asked by %s)\n", q.label)
		}
		if q.from != "" {
			fmt.Fprintf(m.Stdout, "(time window %s to %s)\n", q.from, q.until)
		}
		printPack(m.Stdout, p)
		fmt.Fprintln(m.Stdout)
	}
	fmt.Fprintf(m.Stdout, "demo done in %v. Ask your own: recall query \"...\" --scope demo\n", time.Since(start).Round(time.Millisecond))
	return nil
}
