package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/statement"
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
	// exactBaseline adds the exact vector search arm (bench --baselines).
	exactBaseline bool
	queryTime     string
	// supersedesField and validFromField map a document's supersessions and validity start;
	// asOfField a query's as_of (issue 35's knowledge-update data, aizk-eval updates).
	supersedesField, validFromField, asOfField string
	noExtract                                  bool
	bm25Postings                               int
	bm25K1                                     float64
	bm25B                                      float64
	weights                                    string
	rrfK                                       float64
	engine                                     cli.EngineFlags // the embedder, profile, settings file, --set and learned order
	summarize                                  string          // groupings to summarize after ingest ("session", "community", both comma-separated)
	summaryCap                                 int             // a summary's token cap
	altitude                                   string
	passages                                   string
	with                                       string // a second data set spread over this one's scopes (eval.Mix)
	withSplit                                  string
	messages                                   bool            // cut every turn into its messages (eval.Messages)
	answerField                                string          // with messages: judge the messages that hold the answer this query field holds
	set                                        map[string]bool // the flags given
}

// visit notes which flags fs was given, after parsing.
func (d *datasetFlags) visit(fs *flag.FlagSet) {
	d.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { d.set[f.Name] = true })
}

// config is the engine configuration of the evaluation (cli.EngineFlags: the embedder,
// profile, settings file, --set, learned order), with the changes of the older per-setting
// flags given (--bm25-*, --rrf-k, --weights: kept as shorthands of --set).
func (d datasetFlags) config(ctx context.Context, getenv func(string) string) (recall.Config, error) {
	cfg, err := d.engine.Config(ctx, getenv)
	if err != nil {
		return cfg, err
	}
	base := cfg.Settings
	if base == nil {
		prof, err := recall.ProfileFor(cfg.Profile, cfg.Embedder)
		if err != nil {
			return cfg, err
		}
		base = &prof.Settings
	}
	s, err := d.settings(*base)
	if err != nil {
		return cfg, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	cfg.Settings = &s
	return cfg, nil
}

// settings applies the per-setting flags given to s.
func (d datasetFlags) settings(s statement.Settings) (statement.Settings, error) {
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

// loadVersion changes when the same corpus and flags would be ingested differently. 6: the
// extractor leaves out contractions (I'm, Don't) and single words at a line's or a colon's
// start, and keeps "New" in names.
const loadVersion = "6"

// dbName is the database of a dataset: a hash of its corpus and of every flag that changes
// what is stored, so a changed corpus or mapping gets a fresh database and an unchanged one
// is reused.
func (d datasetFlags) dbName(ds *eval.Dataset) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, doc := range ds.Corpus {
		if err := enc.Encode(doc); err != nil {
			return "", err
		}
	}
	emb, err := d.embedderName()
	if err != nil {
		return "", err
	}
	// The schema and the embedder change what is stored as much as the mapping does.
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%s\x00%v\x00%s\x00%s\x00%s\x00%s", loadVersion, d.scopeField, d.speakerField, d.timeField, d.noExtract,
		d.sessionField, d.timeLayout, migrations.Hash(), emb)
	if f := d.engine.FunctionalPredicates(); len(f) > 0 { // without them the name is as before
		fmt.Fprintf(h, "\x00functional %v", f)
	}
	if d.supersedesField != "" || d.validFromField != "" { // without them the name is as before
		fmt.Fprintf(h, "\x00validity %s %s", d.supersedesField, d.validFromField)
	}
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

func (m *Main) datasetFlags(fs *flag.FlagSet, d *datasetFlags) {
	d.engine.Register(fs)
	fs.StringVar(&d.dir, "dataset", "", "BEIR-format directory (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), or a LongMemEval JSON file")
	fs.StringVar(&d.split, "split", "test", "qrels split to run")
	fs.StringVar(&d.scopeField, "scope-field", "", "metadata field naming each document's and query's scope")
	fs.StringVar(&d.speakerField, "speaker-field", "", "metadata field naming the speaker (an entity, and the asking user's label)")
	fs.StringVar(&d.timeField, "time-field", "", "metadata field holding each document's occurred time")
	fs.StringVar(&d.timeLayout, "time-layout", "", `Go time layout of --time-field's values, tried first (e.g. "3:04 pm on 2 January, 2006"; built-in layouts follow)`)
	fs.StringVar(&d.queryTime, "query-time-field", "", "query metadata field holding when the question is asked (relative times in it are read from there; default: now)")
	fs.StringVar(&d.sessionField, "session-field", "", "metadata field naming each document's session: its source, in which documents are ordered as in the corpus")
	fs.StringVar(&d.supersedesField, "supersedes-field", "", "metadata field listing the ids of the documents each document supersedes")
	fs.StringVar(&d.validFromField, "valid-from-field", "", "metadata field holding when each document starts to hold")
	fs.StringVar(&d.asOfField, "as-of-field", "", "query metadata field holding the time the question asks about (Options.AsOf; default: now)")
	fs.BoolVar(&d.noExtract, "no-extract", false, "do not extract entity names from the corpus")
	fs.IntVar(&d.bm25Postings, "bm25-postings", statement.DefaultSettings().BM25Postings, "postings read per query term (0: all)")
	fs.Float64Var(&d.bm25K1, "bm25-k1", statement.DefaultSettings().BM25K1, "BM25 term-frequency saturation k1")
	fs.Float64Var(&d.bm25B, "bm25-b", statement.DefaultSettings().BM25B, "BM25 length normalisation b, in [0, 1]")
	fs.StringVar(&d.weights, "weights", "", "lane weights of the fusion, e.g. vector=0.5,bm25=1 (default: the engine's)")
	fs.Float64Var(&d.rrfK, "rrf-k", 0, "RRF constant k (0: the engine's)")
	fs.StringVar(&d.summarize, "summarize", "", "after ingest, summarize every scope by these groupings (session, community; comma-separated), as recall summarize does")
	fs.IntVar(&d.summaryCap, "summary-tokens", recall.DefaultSummaryTokens, "with --summarize: a summary's token cap")
	fs.StringVar(&d.altitude, "altitude", "auto", "the packs' altitude: auto, memories or summaries")
	fs.StringVar(&d.passages, "passages", "auto", "how the packs give long memories scored by a passage: auto, whole or passage")
	fs.StringVar(&d.with, "with", "", "a second BEIR-format data set whose documents are spread over --dataset's scopes (--scope-field), its judged queries asked with the first's: kinds of memory in one scope")
	fs.StringVar(&d.withSplit, "with-split", "train", "the qrels split of --with")
	fs.BoolVar(&d.messages, "messages", false, "cut every document of a session (a turn) into its messages (sentences, and each shared photo), one memory each, as a messaging app holds a chat; a turn counts as found at its first message")
	fs.StringVar(&d.answerField, "answer-field", "", "with --messages: query metadata field holding the answer; a judged turn's judged messages are then those sharing the most words with it (then with the question), not the whole turn")
}

// embedderName names the embedder the flags configure (the built-in one's without one).
func (d datasetFlags) embedderName() (string, error) {
	e, err := d.engine.Embedder(context.Background())
	if err != nil {
		return "", err
	}
	if e == nil {
		if e, err = embed.NewHashing(0); err != nil {
			return "", err
		}
	}
	return e.Name(), nil
}
