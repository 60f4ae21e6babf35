package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	embedonnx "github.com/recall-engine/recall/embed/onnx"
	"github.com/recall-engine/recall/lexicon"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// EngineFlags are the flags every command that runs the engine shares: the embedder, the
// profile, the settings and the learned order. Config builds the engine's configuration from
// them, so each command reads them the same way.
type EngineFlags struct {
	Profile  string
	Settings string   // a settings file (RECALL_SETTINGS when unset)
	Set      setFlags // name=value over the file's (or the profile's) settings
	Order    string   // a model file, "off", or "" for the profile's

	EmbedURL, EmbedModel, EmbedKeyEnv string
	EmbedDim                          int
	EmbedONNX                         string
	// Functional are the functional relation predicates (recall.Config.FunctionalPredicates),
	// comma-separated.
	Functional string
	// WordNet is a WordNet database directory for the question's expansion (--wordnet), and
	// Expand the relations it takes (--expand).
	WordNet, Expand string
}

// setFlags collects repeated --set name=value.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// Register adds the flags to fs.
func (f *EngineFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Profile, "profile", "", `defaults of the settings and the learned order: "hashing", "external", or "" to pick by the embedder`)
	fs.StringVar(&f.Settings, "settings", "", "settings file (JSON by setting name, as aizk-eval tune writes; default $RECALL_SETTINGS)")
	fs.Var(&f.Set, "set", "a setting as name=value over the settings file's, e.g. --set rrf_k=30 --set weights.vector=0.5 (repeatable)")
	fs.StringVar(&f.Order, "order", "", `the learned order: a model file (aizk-eval order --out), "off" for the fused order, "" for the profile's`)
	fs.StringVar(&f.WordNet, "wordnet", "", "a WordNet 3.0 database directory (Debian's wordnet-base: "+lexicon.DefaultDir+") whose related words expand the question's BM25 terms, at --set expansion_weight=W (off at 0, the default)")
	fs.StringVar(&f.Expand, "expand", "synonyms,hyponyms", "with --wordnet: the relations of a word's first sense that expand it: synonyms, hyponyms, hypernyms (comma-separated)")
	f.RegisterEmbedder(fs)
}

// RegisterEmbedder adds the embedder's flags alone, for commands that write memories
// (their embeddings must come from the embedder recalls use).
func (f *EngineFlags) RegisterEmbedder(fs *flag.FlagSet) {
	fs.StringVar(&f.Functional, "functional", "", "relation predicates that hold one value at a time for a subject, comma-separated (e.g. lives_in,works_at): a newer one supersedes the older one's evidence")
	fs.StringVar(&f.EmbedURL, "embed-url", "", "an OpenAI-compatible embeddings server's base URL, e.g. http://localhost:11434/v1 (default: the built-in hashing embedder)")
	fs.StringVar(&f.EmbedModel, "embed-model", "", "with --embed-url: the model name")
	fs.IntVar(&f.EmbedDim, "embed-dim", 0, "with --embed-url: the model's dimension")
	fs.StringVar(&f.EmbedKeyEnv, "embed-key-env", "", "with --embed-url: the environment variable holding the server's API key")
	fs.StringVar(&f.EmbedONNX, "embed-onnx", "", "a sentence-transformers ONNX export's directory to embed with (docs/MODELS.md)")
}

// Embedder is the embedder the flags name: nil for the built-in one.
func (f *EngineFlags) Embedder(ctx context.Context) (embed.Embedder, error) {
	switch {
	case f.EmbedURL != "" && f.EmbedONNX != "":
		return nil, fmt.Errorf("%w: --embed-url and --embed-onnx: name one embedder", ErrUsage)
	case f.EmbedURL != "":
		e, err := embed.NewHTTP(embed.HTTPConfig{BaseURL: f.EmbedURL, Model: f.EmbedModel, Dim: f.EmbedDim, APIKeyEnv: f.EmbedKeyEnv})
		if err != nil {
			return nil, fmt.Errorf("%w: --embed-url: %v", ErrUsage, err)
		}
		return e, nil
	case f.EmbedONNX != "":
		return embedonnx.New(ctx, embedonnx.Config{Dir: f.EmbedONNX})
	}
	return nil, nil
}

// Config returns the engine configuration of the flags: the embedder, the profile, the
// settings (the file's, or the profile's, with --set over them) and the learned order.
// getenv reads RECALL_SETTINGS when --settings is not given.
func (f *EngineFlags) Config(ctx context.Context, getenv func(string) string) (recall.Config, error) {
	var cfg recall.Config
	emb, err := f.Embedder(ctx)
	if err != nil {
		return cfg, err
	}
	cfg.Embedder, cfg.Profile, cfg.FunctionalPredicates = emb, f.Profile, f.FunctionalPredicates()
	prof, err := recall.ProfileFor(f.Profile, emb)
	if err != nil {
		return cfg, fmt.Errorf("%w: --profile: %v", ErrUsage, err)
	}
	file := f.Settings
	if file == "" && getenv != nil {
		file = getenv("RECALL_SETTINGS")
	}
	if file != "" || len(f.Set) > 0 {
		s := prof.Settings
		if file != "" {
			if s, err = statement.LoadSettingsOver(prof.Settings, file); err != nil {
				return cfg, fmt.Errorf("%w: --settings: %v", ErrUsage, err)
			}
		}
		if s, err = applySets(s, f.Set); err != nil {
			return cfg, fmt.Errorf("%w: --set: %v", ErrUsage, err)
		}
		cfg.Settings = &s
	}
	if f.WordNet != "" {
		var rel lexicon.Relations
		for _, r := range strings.Split(f.Expand, ",") {
			switch strings.TrimSpace(r) {
			case "synonyms":
				rel.Synonyms = true
			case "hyponyms":
				rel.Hyponyms = true
			case "hypernyms":
				rel.Hypernyms = true
			default:
				return cfg, fmt.Errorf("%w: --expand: %q: want synonyms, hyponyms or hypernyms", ErrUsage, r)
			}
		}
		wn, err := lexicon.Load(f.WordNet)
		if err != nil {
			return cfg, fmt.Errorf("--wordnet: %w", err)
		}
		cfg.Expander = lexicon.Expander{WordNet: wn, Relations: rel, PerWord: 4, Max: 12}
	}
	switch f.Order {
	case "":
	case "off":
		cfg.Order = ranker.Off()
	default:
		if cfg.Order, err = ranker.Load(f.Order); err != nil {
			return cfg, fmt.Errorf("%w: --order: %v", ErrUsage, err)
		}
	}
	return cfg, nil
}

// applySets applies name=value settings to s: a value is read as JSON when it parses (a
// number, a quoted duration), else as a string; "weights.lane" sets one lane's weight.
func applySets(s statement.Settings, sets []string) (statement.Settings, error) {
	for _, kv := range sets {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return s, fmt.Errorf("%q: want name=value", kv)
		}
		raw := json.RawMessage(value)
		if !json.Valid(raw) {
			raw, _ = json.Marshal(value)
		}
		var obj []byte
		if lane, ok := strings.CutPrefix(name, "weights."); ok {
			obj, _ = json.Marshal(map[string]any{"weights": map[string]json.RawMessage{lane: raw}})
		} else {
			obj, _ = json.Marshal(map[string]json.RawMessage{name: raw})
		}
		if err := json.Unmarshal(obj, &s); err != nil {
			return s, fmt.Errorf("%s: %w", kv, err)
		}
	}
	return s, s.Validate()
}

// FunctionalPredicates are --functional's predicates (nil: none).
func (f *EngineFlags) FunctionalPredicates() []string {
	var out []string
	for _, p := range strings.Split(f.Functional, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
