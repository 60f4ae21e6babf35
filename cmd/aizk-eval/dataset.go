package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/statement"
	"github.com/recall-engine/recall/summarize"
)

// datasetFlags are how a BEIR dataset maps onto recall's data.
type datasetFlags struct {
	dir          string
	split        string
	scopeField   string
	speakerField string
	timeField    string
	timeLayout   string
	sessionField string
	queryTime    string
	noExtract    bool
	bm25Postings int
	bm25K1       float64
	bm25B        float64
	weights      string
	rrfK         float64
	settingsFile string
	summarize    string // groupings to summarize after ingest ("session", "community", both comma-separated)
	summaryCap   int    // a summary's token cap
	altitude     string
	set          map[string]bool // the flags given
}

// visit notes which flags fs was given, after parsing.
func (d *datasetFlags) visit(fs *flag.FlagSet) {
	d.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { d.set[f.Name] = true })
}

// settings are the statement settings of the evaluation: the settings file's (or the
// defaults), with the changes of the flags given.
func (d datasetFlags) settings() (statement.Settings, error) {
	s := statement.DefaultSettings()
	if d.settingsFile != "" {
		var err error
		if s, err = statement.LoadSettings(d.settingsFile); err != nil {
			return s, err
		}
	}
	if d.set["bm25-postings"] {
		s.BM25Postings = d.bm25Postings
	}
	if d.set["bm25-k1"] {
		s.BM25K1 = d.bm25K1
	}
	if d.set["bm25-b"] {
		s.BM25B = d.bm25B
	}
	if d.rrfK > 0 {
		s.RRFK = d.rrfK
	}
	if d.weights != "" {
		for _, kv := range strings.Split(d.weights, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return s, fmt.Errorf("--weights %q: want lane=weight pairs, comma-separated", d.weights)
			}
			l, err := statement.ParseLane(name)
			if err != nil {
				return s, err
			}
			w, err := strconv.ParseFloat(val, 64)
			if err != nil || w < 0 {
				return s, fmt.Errorf("--weights: %s=%q: want a weight >= 0", name, val)
			}
			s.Weights[l] = w
		}
	}
	return s, nil
}

// defaultScope holds every document when no scope field is named.
const defaultScope = "eval"

// loadVersion changes when the same corpus and flags would be ingested differently.
const loadVersion = "5"

// dbName is the database of a dataset: a hash of the corpus and of every flag that changes
// what is stored, so a changed corpus or mapping gets a fresh database and an unchanged one
// is reused.
func (d datasetFlags) dbName() (string, error) {
	h := sha256.New()
	f, err := os.ReadFile(filepath.Join(d.dir, "corpus.jsonl"))
	if err != nil {
		return "", err
	}
	h.Write(f)
	emb, err := embed.NewHashing(0) // the engine's embedder (Config.Embedder nil)
	if err != nil {
		return "", err
	}
	// The schema and the embedder change what is stored as much as the mapping does.
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%s\x00%v\x00%s\x00%s\x00%s\x00%s", loadVersion, d.scopeField, d.speakerField, d.timeField, d.noExtract,
		d.sessionField, d.timeLayout, migrations.Hash(), emb.Name())
	if d.summarize != "" { // summaries change what is stored; without them the name is as before
		fmt.Fprintf(h, "\x00summaries 2 %s %d", d.summarize, d.summaryCap) // 2: the summarizer skips repeats and isolated sentences
	}
	return "aizk_" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// docScope is the scope a document or query belongs to.
func (d datasetFlags) docScope(meta map[string]any) (string, error) {
	if d.scopeField == "" {
		return defaultScope, nil
	}
	v, ok := meta[d.scopeField].(string)
	if !ok || v == "" {
		return "", fmt.Errorf("metadata field %q is not a non-empty string", d.scopeField)
	}
	return v, nil
}

// openDataset loads the dataset, opens (or creates and ingests) its database, and returns an
// engine on it for evaluation (no access recording).
func (m *Main) openDataset(ctx context.Context, d datasetFlags) (*eval.Dataset, *cli.Conn, *recall.Engine, error) {
	ds, err := eval.LoadBEIR(d.dir, d.split)
	if err != nil {
		return nil, nil, nil, err
	}
	name, err := d.dbName()
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := m.ConnectDatabase(ctx, name, true)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := d.settings()
	if err != nil {
		c.Close()
		return nil, nil, nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	e, err := recall.New(ctx, recall.Config{Pool: c.Runtime, NoAccess: true, Settings: &s})
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	// One ingest per database at a time: another run of the same dataset waits, then reuses it.
	lock, err := c.Owner.Acquire(ctx)
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	defer lock.Release()
	if _, err := lock.Exec(ctx, `SELECT pg_advisory_lock(hashtext('aizk-eval ingest'))`); err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	defer lock.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('aizk-eval ingest'))`) //nolint:errcheck // the session ends with the pool
	var done int
	if err := c.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.sources WHERE external_id = 'aizk:complete'`).Scan(&done); err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	if done == 0 {
		if err := m.ingestDataset(ctx, c, e, ds, d); err != nil {
			c.Close()
			return nil, nil, nil, err
		}
	} else {
		fmt.Fprintf(m.Stderr, "reusing database %s (%d documents ingested before)\n", name, len(ds.Corpus))
	}
	return ds, c, e, nil
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
	done := 0
	opts := records.Options{SpeakerField: d.speakerField, TimeField: d.timeField, SessionField: d.sessionField, TimeLayouts: d.layouts()}
	for _, sc := range order {
		docs := byScope[sc]
		var seq records.Sequencer // places count per source, and sources are per scope
		user := recall.User{ID: "aizk-eval", Read: []string{sc}, Write: []string{sc}}
		for lo := 0; lo < len(docs); lo += 500 {
			b, err := corpusBatch(docs[lo:min(len(docs), lo+500)], opts, &seq)
			if err != nil {
				return err
			}
			b.NoExtract = d.noExtract
			if _, err := e.Write(ctx, user, b); err != nil {
				return fmt.Errorf("ingest: %w", err)
			}
			done += len(b.Memories)
			bar.Set(int64(done))
		}
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
	if _, err := c.Owner.Exec(ctx, `ANALYZE`); err != nil {
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

// options are the recall options of query q: its time, when a field holds it.
func (d datasetFlags) options(q eval.Query) (*recall.Options, error) {
	alt, err := recall.ParseAltitude(d.altitude)
	if err != nil {
		return nil, err
	}
	opts := &recall.Options{Altitude: alt}
	if d.queryTime != "" {
		if v, ok := q.Meta[d.queryTime].(string); ok {
			t, err := records.ParseTime(v, d.layouts()...)
			if err != nil {
				return nil, fmt.Errorf("query %s: %s: %w", q.ID, d.queryTime, err)
			}
			opts.Now = t
		}
	}
	return opts, nil
}

// layouts are the time layouts --time-layout names.
func (d datasetFlags) layouts() []string {
	if d.timeLayout == "" {
		return nil
	}
	return []string{d.timeLayout}
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

// queryUser is who asks query q: a reader of its scope, labelled with its speaker.
func (d datasetFlags) queryUser(q eval.Query) (recall.User, error) {
	sc, err := d.docScope(q.Meta)
	if err != nil {
		return recall.User{}, fmt.Errorf("query %s: %w", q.ID, err)
	}
	u := recall.User{ID: "aizk-eval", Read: []string{sc}}
	if d.speakerField != "" {
		if v, ok := q.Meta[d.speakerField].(string); ok {
			u.Label = v
		}
	}
	return u, nil
}

// search is the study's SearchFunc: the full recall path (no reranker configured). With
// budget 0, a budget large enough to pack every candidate, so the pack is the ranking.
func (d datasetFlags) search(e *recall.Engine, owner *pgxpool.Pool) eval.SearchFunc {
	return func(ctx context.Context, q eval.Query, plan statement.Plan, budget int) ([]string, error) {
		u, err := d.queryUser(q)
		if err != nil {
			return nil, err
		}
		if budget == 0 {
			budget = 1_000_000
		}
		opts, err := d.options(q)
		if err != nil {
			return nil, err
		}
		opts.Plan = plan
		p, err := e.Recall(ctx, u, q.Text, budget, opts)
		if err != nil {
			return nil, err
		}
		return carried(ctx, owner, p)
	}
}

// carried lists the pack's memories in order, each summary as the covered memories it
// carries whole: those all of whose sentences are in the summary's text. An extractive
// summary holds some of its group's sentences; a memory it holds only in part, or not at
// all, is not evidence the pack gives.
func carried(ctx context.Context, owner *pgxpool.Pool, p *recall.Pack) ([]string, error) {
	var covered []int64
	for _, it := range p.Items {
		if it.Kind == "summary" {
			covered = append(covered, it.Covers...)
		}
	}
	if len(covered) == 0 {
		return p.IDs(), nil
	}
	type memory struct{ ext, text string }
	texts := map[int64]memory{}
	rows, err := owner.Query(ctx, `SELECT id, external_id, text FROM recall.memories WHERE id = ANY($1)`, covered)
	if err != nil {
		return nil, err
	}
	var id int64
	var m memory
	if _, err := pgx.ForEachRow(rows, []any{&id, &m.ext, &m.text}, func() error { texts[id] = m; return nil }); err != nil {
		return nil, err
	}
	var out []string
	for _, it := range p.Items {
		if it.Kind != "summary" {
			out = append(out, it.ExternalID)
			continue
		}
		has := map[string]bool{}
		for _, x := range summarize.Sentences([]string{it.Text}) {
			has[x] = true
		}
		for _, c := range it.Covers {
			whole := true
			for _, x := range summarize.Sentences([]string{texts[c].text}) {
				whole = whole && has[x]
			}
			if whole {
				out = append(out, texts[c].ext)
			}
		}
	}
	return out, nil
}

func (m *Main) datasetFlags(fs interface {
	StringVar(*string, string, string, string)
	BoolVar(*bool, string, bool, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
}, d *datasetFlags) {
	fs.StringVar(&d.dir, "dataset", "", "BEIR-format directory: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
	fs.StringVar(&d.split, "split", "test", "qrels split to run")
	fs.StringVar(&d.scopeField, "scope-field", "", "metadata field naming each document's and query's scope")
	fs.StringVar(&d.speakerField, "speaker-field", "", "metadata field naming the speaker (an entity, and the asking user's label)")
	fs.StringVar(&d.timeField, "time-field", "", "metadata field holding each document's occurred time")
	fs.StringVar(&d.timeLayout, "time-layout", "", `Go time layout of --time-field's values, tried first (e.g. "3:04 pm on 2 January, 2006"; built-in layouts follow)`)
	fs.StringVar(&d.queryTime, "query-time-field", "", "query metadata field holding when the question is asked (relative times in it are read from there; default: now)")
	fs.StringVar(&d.sessionField, "session-field", "", "metadata field naming each document's session: its source, in which documents are ordered as in the corpus")
	fs.BoolVar(&d.noExtract, "no-extract", false, "do not extract entity names from the corpus")
	fs.IntVar(&d.bm25Postings, "bm25-postings", statement.DefaultSettings().BM25Postings, "postings read per query term (0: all)")
	fs.Float64Var(&d.bm25K1, "bm25-k1", statement.DefaultSettings().BM25K1, "BM25 term-frequency saturation k1")
	fs.Float64Var(&d.bm25B, "bm25-b", statement.DefaultSettings().BM25B, "BM25 length normalisation b, in [0, 1]")
	fs.StringVar(&d.weights, "weights", "", "lane weights of the fusion, e.g. vector=0.5,bm25=1 (default: the engine's)")
	fs.StringVar(&d.settingsFile, "settings", "", "settings file (JSON, as aizk-eval tune writes) the engine starts from; the flags above change it")
	fs.Float64Var(&d.rrfK, "rrf-k", 0, "RRF constant k (0: the engine's)")
	fs.StringVar(&d.summarize, "summarize", "", "after ingest, summarize every scope by these groupings (session, community; comma-separated), as recall summarize does")
	fs.IntVar(&d.summaryCap, "summary-tokens", recall.DefaultSummaryTokens, "with --summarize: a summary's token cap")
	fs.StringVar(&d.altitude, "altitude", "auto", "the packs' altitude: auto, memories or summaries")
}
