package recall

import (
	"fmt"
	"reflect"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// Profile is what recall takes by default for a kind of embedder: the statement's settings
// and the learned order. A fusion fitted for one embedder all but ignores a better one (the
// built-in hashing embedder adds little, so its vector weight is small), so the profile
// follows the configured embedder unless Config.Profile names one; Config.Settings and
// Config.Order override its parts.
type Profile struct {
	Name     string
	Settings statement.Settings
	Order    *ranker.Model // nil: the statement's fused order
	// Why says where the profile's values come from.
	Why string
}

// Profile names.
const (
	ProfileHashing  = "hashing"
	ProfileExternal = "external"
)

// HashingProfile is the built-in hashing embedder's: the settings and the learned order
// fitted on the development data with that embedder (statement.DefaultSettings,
// ranker.DefaultModel; eval/results/README.md has the fits and their held-out scores).
func HashingProfile() Profile {
	return Profile{Name: ProfileHashing, Settings: statement.DefaultSettings(), Order: ranker.DefaultModel(),
		Why: "fitted by aizk-eval tune on LoCoMo's development conversations and SciFact's train split with the built-in hashing embedder"}
}

// ExternalProfile is for an embedder of meaning (an ONNX model, an embeddings server): the
// hybrid-search defaults of the literature and the peers, not fitted here, since no model
// weights can be had on the machines recall is developed on. Its reasons, weight by weight:
//
//   - rrf_k 60: Cormack, Clarke and Buettcher's RRF constant (SIGIR 2009), the default of
//     Elasticsearch's, OpenSearch's and Azure AI Search's rank fusion; the fitted 2 trusts the
//     first ranks of lanes measured with the hashing embedder, which a new model's are not;
//   - vector 1, and the lexical lanes 1 between them (bm25 0.5, context 0.5): a dense and a
//     lexical list weigh the same, the fusion those engines default to; the context lane is
//     bm25 with the neighbours' words, so the two share the lexical half;
//   - mention 0.2, graph 0.1, temporal 0.3, title 0.3: the structural lanes keep the ratios
//     the fit gave them against bm25 (0.1, 0.05, 0.25, 0.15 against 0.7) within that half,
//     rounded: they find what no similarity does (a name, a date, a title);
//   - no learned order: the shipped model weighs features of the hashing embedder's vector
//     lane; refit one on your data with your embedder (docs/MODELS.md).
func ExternalProfile() Profile {
	s := statement.DefaultSettings()
	s.RRFK = 60
	s.Weights = statement.Weights{}
	for l, w := range map[statement.Lane]float64{statement.Vector: 1, statement.BM25: 0.5, statement.Context: 0.5,
		statement.Mention: 0.2, statement.Graph: 0.1, statement.Temporal: 0.3, statement.Title: 0.3} {
		s.Weights[l] = w
	}
	return Profile{Name: ProfileExternal, Settings: s,
		Why: "hybrid-search defaults (RRF k 60, dense and lexical weighed alike) for an embedder of meaning; refit on your data"}
}

// ProfileFor returns the profile named ("" picks by the embedder: hashing for the built-in
// one, external for any other).
func ProfileFor(name string, e embed.Embedder) (Profile, error) {
	if name == "" {
		if _, ok := e.(*embed.Hashing); ok || e == nil {
			name = ProfileHashing
		} else {
			name = ProfileExternal
		}
	}
	switch name {
	case ProfileHashing:
		return HashingProfile(), nil
	case ProfileExternal:
		return ExternalProfile(), nil
	}
	return Profile{}, fmt.Errorf("recall: Config.Profile %q: want %q, %q or empty (by the embedder)", name, ProfileHashing, ProfileExternal)
}

// profileWarning says when an embedder of meaning runs with what was fitted for the hashing
// embedder: the settings or the order of the hashing profile, given explicitly. "" when not.
func profileWarning(e embed.Embedder, s statement.Settings, order *ranker.Model) string {
	if _, ok := e.(*embed.Hashing); ok {
		return ""
	}
	h := HashingProfile()
	switch {
	case reflect.DeepEqual(s, h.Settings):
		return fmt.Sprintf("the embedder %s runs with the settings fitted for the built-in hashing embedder, whose vector weight (%g) all but ignores it: use the external profile or refit (docs/MODELS.md)", e.Name(), s.Weights[statement.Vector])
	case order != nil && order.Name == h.Order.Name:
		return fmt.Sprintf("the embedder %s runs with the order fitted for the built-in hashing embedder (%s): use the external profile or refit (docs/MODELS.md)", e.Name(), order.Name)
	}
	return ""
}
