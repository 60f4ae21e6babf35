package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/sql"
)

// openDataset loads the dataset, opens (or creates and ingests) its database, and returns an
// engine on it for evaluation (no access recording).
func (m *Main) openDataset(ctx context.Context, d datasetFlags) (*eval.Dataset, *cli.Conn, *recall.Engine, error) {
	ds, err := d.load()
	if err != nil {
		return nil, nil, nil, err
	}
	return m.openLoaded(ctx, d, ds)
}

// load reads --dataset, mixed with --with when it is given, its turns cut into messages
// with --messages.
func (d datasetFlags) load() (*eval.Dataset, error) {
	if d.messages && d.sessionField == "" {
		return nil, fmt.Errorf("%w: --messages needs --session-field: the turns it cuts are the documents that have one", cli.ErrUsage)
	}
	if d.answerField != "" && !d.messages {
		return nil, fmt.Errorf("%w: --answer-field judges messages: it needs --messages", cli.ErrUsage)
	}
	a, err := eval.Load(d.dir, d.split)
	if err != nil {
		return nil, err
	}
	if d.with != "" {
		if d.scopeField == "" {
			return nil, fmt.Errorf("%w: --with needs --scope-field: its documents are spread over the scopes it names", cli.ErrUsage)
		}
		b, err := eval.Load(d.with, d.withSplit)
		if err != nil {
			return nil, err
		}
		if a, err = eval.Mix(a, b, setName(d.dir), setName(d.with), d.scopeField, d.mapped(), d.docScope); err != nil {
			return nil, err
		}
	}
	if d.messages {
		return eval.Messages(a, d.sessionField, d.answerField)
	}
	return a, nil
}

// setName names a data set by its directory.
func setName(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// mapped are the metadata fields the mapping reads besides the scope: a mixed-in set's
// records lose them.
func (d datasetFlags) mapped() []string {
	return []string{d.speakerField, d.timeField, d.sessionField, d.queryTime, d.supersedesField, d.validFromField, d.asOfField}
}

// openLoaded opens (or creates and ingests) the database of a loaded data set, as
// openDataset does.
func (m *Main) openLoaded(ctx context.Context, d datasetFlags, ds *eval.Dataset) (*eval.Dataset, *cli.Conn, *recall.Engine, error) {
	name, err := d.dbName(ds)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := m.ConnectDatabase(ctx, name, true)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, err := d.config(ctx, m.Getenv)
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	cfg.Pool, cfg.NoAccess = c.Runtime, true
	e, err := recall.New(ctx, cfg)
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	if err := m.ingestOnce(ctx, c, e, ds, d, name); err != nil {
		c.Close() // after ingestOnce released its connection: Close waits for every acquired one
		return nil, nil, nil, err
	}
	return ds, c, e, nil
}

// ingestOnce ingests ds into database name unless an earlier run completed it. One ingest per
// database at a time: another run of the same dataset waits, then reuses it.
func (m *Main) ingestOnce(ctx context.Context, c *cli.Conn, e *recall.Engine, ds *eval.Dataset, d datasetFlags, name string) error {
	lock, err := c.Owner.Acquire(ctx)
	if err != nil {
		return err
	}
	defer lock.Release()
	if _, err := lock.Exec(ctx, sqltext.EvalLock); err != nil {
		return err
	}
	defer lock.Exec(context.WithoutCancel(ctx), sqltext.EvalUnlock) //nolint:errcheck // the session ends with the pool
	var done bool
	if err := c.Owner.QueryRow(ctx, sqltext.EvalComplete).Scan(&done); err != nil {
		return err
	}
	if done {
		fmt.Fprintf(m.Stderr, "reusing database %s (%d documents ingested before)\n", name, len(ds.Corpus))
		return nil
	}
	return m.ingestDataset(ctx, c, e, ds, d)
}

// pipe writes prepared batches one at a time, in order, each while the next is prepared.
type pipe struct {
	ctx    context.Context
	bar    *progress.Bar
	done   int                 // memories written
	flight records.Flight[int] // the batch in flight, tagged with its memories
}

func newPipe(ctx context.Context, bar *progress.Bar) *pipe { return &pipe{ctx: ctx, bar: bar} }

// start waits for the batch in flight, then starts writing p (n memories).
func (w *pipe) start(p *recall.PreparedWrite, n int) error {
	if err := w.land(); err != nil {
		return err
	}
	w.flight.Start(w.ctx, p.Write, n)
	return nil
}

// land waits for the batch in flight, if any.
func (w *pipe) land() error {
	n, _, ok, err := w.flight.Land()
	if !ok {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	w.done += n
	w.bar.Set(int64(w.done))
	return nil
}

// ingestDataset writes the corpus (into a database that may hold a partial earlier attempt:
// ids upsert) and marks it complete.
func (m *Main) ingestDataset(ctx context.Context, c *cli.Conn, e *recall.Engine, ds *eval.Dataset, d datasetFlags) error {
	start := time.Now()
	bar := progress.New(m.Stderr, "ingest "+filepath.Base(d.dir), int64(len(ds.Corpus)), false)
	byScope := map[string][]eval.Doc{}
	var order []string
	for _, doc := range ds.Corpus {
		sc, err := d.docScope(doc.Metadata)
		if err != nil {
			return fmt.Errorf("corpus document %s: %w", doc.ID, err)
		}
		if _, ok := byScope[sc]; !ok {
			order = append(order, sc)
		}
		byScope[sc] = append(byScope[sc], doc)
	}
	opts := records.Options{SpeakerField: d.speakerField, TimeField: d.timeField, SessionField: d.sessionField, TimeLayouts: d.layouts(),
		SupersedesField: d.supersedesField, ValidFromField: d.validFromField}
	// Each batch is prepared (embedded) while the one before it is written.
	w := newPipe(ctx, bar)
	for _, sc := range order {
		docs := byScope[sc]
		var seq records.Sequencer // places count per source, and sources are per scope
		user := recall.User{ID: "aizk-eval", Read: []string{sc}, Write: []string{sc}}
		for lo := 0; lo < len(docs); lo += 500 {
			b, err := corpusBatch(docs[lo:min(len(docs), lo+500)], opts, &seq)
			if err != nil {
				return errors.Join(err, w.land())
			}
			b.NoExtract = d.noExtract
			p, err := e.Prepare(ctx, user, b)
			if err != nil {
				return errors.Join(fmt.Errorf("ingest: %w", err), w.land())
			}
			if err := w.start(p, len(b.Memories)); err != nil {
				return err
			}
		}
	}
	if err := w.land(); err != nil {
		return err
	}
	bar.Finish()
	fmt.Fprintf(m.Stderr, "building the vector index...\n")
	if err := e.EnsureVectorIndex(ctx); err != nil {
		return err
	}
	if d.summarize != "" {
		for _, sc := range order {
			user := recall.User{ID: "aizk-eval", Read: []string{sc}, Write: []string{sc}}
			res, err := e.Summarize(ctx, user, recall.SummarizeOptions{By: strings.Split(d.summarize, ","), MaxTokens: d.summaryCap})
			if err != nil {
				return fmt.Errorf("summarize scope %s: %w", sc, err)
			}
			fmt.Fprintf(m.Stderr, "scope %s: %d summaries %v\n", sc, res.Written, res.Groups)
		}
	}
	if _, err := c.Owner.Exec(ctx, sqltext.Analyze); err != nil {
		return err
	}
	meta := recall.User{ID: "aizk-eval", Read: []string{"aizk-meta"}, Write: []string{"aizk-meta"}}
	if _, err := e.Write(ctx, meta, recall.Batch{Sources: []recall.Source{{ID: "aizk:complete", Title: "aizk-eval ingest complete",
		Metadata: map[string]any{"documents": len(ds.Corpus), "seconds": time.Since(start).Seconds()}}}}); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "ingested %d documents in %v\n", len(ds.Corpus), time.Since(start).Round(time.Millisecond))
	return nil
}

// corpusBatch maps documents to one batch: each source once (the first document's), the
// memories placed in their sources by seq. A corpus is entity-dense text loaded in bulk:
// exact entity links only, and the vector index built at the end.
func corpusBatch(docs []eval.Doc, opts records.Options, seq *records.Sequencer) (recall.Batch, error) {
	b := recall.Batch{DeferVectorIndex: true, ExactEntityLinks: true}
	seen := map[string]bool{}
	for _, doc := range docs {
		recs, err := doc.Records(opts)
		if err != nil {
			return b, fmt.Errorf("corpus document %s: %w", doc.ID, err)
		}
		for _, r := range recs {
			seq.Place(&r)
			if r.Source != nil && !seen[r.Source.ID] {
				seen[r.Source.ID] = true
				b.Sources = append(b.Sources, *r.Source)
			}
			if r.Memory != nil {
				b.Memories = append(b.Memories, *r.Memory)
			}
		}
	}
	return b, nil
}
