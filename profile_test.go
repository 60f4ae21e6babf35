package recall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// model stands for an embedder of meaning (an ONNX model, an embeddings server): any
// embedder that is not the built-in one. It embeds as the hashing embedder does, so the
// world's stored embeddings fit it.
type model struct{ *embed.Hashing }

func (m model) Name() string { return "some-model-384" }

// TestProfiles: the built-in embedder takes the hashing profile (its fitted settings and the
// shipped order), any other the external one (RRF k 60, dense and lexical weighed alike, no
// learned order); an embedder of meaning run with the hashing profile's settings or order
// gets a warning in every pack, and none otherwise; a profile can be named.
func TestProfiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	q := "Who inspects the cranes?"
	warned := func(p *recall.Pack) bool {
		for _, w := range p.Warnings {
			if w.Stage == "settings" && strings.Contains(w.Message, "hashing") {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		name    string
		cfg     recall.Config
		profile string
		rrfK    float64
		order   string // the learned order's name, "" for none
		warn    bool
	}{
		{"built-in embedder", recall.Config{}, recall.ProfileHashing, 2, ranker.DefaultModel().Name, false},
		{"an embedder of meaning", recall.Config{Embedder: model{b.emb}}, recall.ProfileExternal, 60, "", false},
		{"named profile", recall.Config{Embedder: model{b.emb}, Profile: recall.ProfileHashing}, recall.ProfileHashing, 2, ranker.DefaultModel().Name, true},
		{"hashing settings given", recall.Config{Embedder: model{b.emb}, Settings: ptr(statement.DefaultSettings())}, recall.ProfileExternal, 2, "", true},
		{"hashing order given", recall.Config{Embedder: model{b.emb}, Order: ranker.DefaultModel()}, recall.ProfileExternal, 60, ranker.DefaultModel().Name, true},
		{"external profile on the built-in embedder", recall.Config{Profile: recall.ProfileExternal}, recall.ProfileExternal, 60, "", false},
	} {
		c.cfg.NoAccess = true
		e := b.engine(t, c.cfg)
		tr, err := e.Trace(ctx, member, q, 500, nil)
		if err != nil {
			t.Fatal(err)
		}
		order := ""
		if tr.Order != nil {
			order = tr.Order.Name
		}
		if e.Profile() != c.profile || e.Settings().RRFK != c.rrfK || order != c.order || warned(tr.Pack) != c.warn {
			t.Errorf("%s: profile %s, rrf_k %v, order %q, warned %v; want %s, %v, %q, %v (warnings %v)",
				c.name, e.Profile(), e.Settings().RRFK, order, warned(tr.Pack), c.profile, c.rrfK, c.order, c.warn, tr.Pack.Warnings)
		}
	}
	ext := recall.ExternalProfile().Settings
	if ext.Weights[statement.Vector] != ext.Weights[statement.BM25]+ext.Weights[statement.Context] {
		t.Errorf("external profile: vector %v against lexical %v + %v", ext.Weights[statement.Vector], ext.Weights[statement.BM25], ext.Weights[statement.Context])
	}
	if _, err := recall.New(ctx, recall.Config{Pool: b.db.Runtime, Profile: "fancy"}); err == nil || !strings.Contains(err.Error(), "Profile") {
		t.Errorf("an unknown profile: %v", err)
	}
}
