package onnx_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/embed/onnx"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
)

// backends are the backends this test binary has: ONNX Runtime too when built with -tags ort.
func backends() []onnx.Backend {
	if ortrun.Built {
		return []onnx.Backend{onnx.BackendGo, onnx.BackendORT}
	}
	return []onnx.Backend{onnx.BackendGo}
}

// eachBackend runs f once per backend, as a subtest.
func eachBackend(t *testing.T, f func(t *testing.T, b onnx.Backend)) {
	for _, b := range backends() {
		t.Run(string(b), func(t *testing.T) { f(t, b) })
	}
}

const tiny = "../../testdata/models/tiny-embedder"

func load(t *testing.T, cfg onnx.Config) *onnx.Embedder {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tiny
	}
	e, err := onnx.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func TestConformance(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b onnx.Backend) {
		e := load(t, onnx.Config{BatchSize: 3, Backend: b})
		if e.Dim() != 32 || e.MaxLen() != 64 {
			t.Fatalf("dim %d max len %d, want 32 and 64", e.Dim(), e.MaxLen())
		}
		// Padding to the longest text in a batch must not move a vector by more than float noise.
		modeltest.Embedder(t, e, 1e-5)
	})
}

// TestMatchesReference compares with a numpy forward pass over the same weights, tokenized
// by the generator's own WordPiece code (testdata/models/README.md).
func TestMatchesReference(t *testing.T) {
	t.Parallel()
	var ref struct {
		Texts      []string    `json:"texts"`
		IDs        [][]int     `json:"ids"`
		Embeddings [][]float64 `json:"embeddings"`
	}
	b, err := os.ReadFile(filepath.Join(tiny, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	eachBackend(t, func(t *testing.T, b onnx.Backend) {
		e := load(t, onnx.Config{Backend: b})
		got, err := e.Embed(context.Background(), ref.Texts, embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range ref.Embeddings {
			if n := e.Count(ref.Texts[i]); n != len(ref.IDs[i])-2 {
				t.Fatalf("text %d: %d tokens, the reference tokenizer gives %d", i, n, len(ref.IDs[i])-2)
			}
			for j := range want {
				if d := math.Abs(float64(got[i][j]) - want[j]); d > 1e-4 {
					t.Fatalf("text %d dim %d: %v, reference %v", i, j, got[i][j], want[j])
				}
			}
		}
	})
}

func TestTruncation(t *testing.T) {
	t.Parallel()
	e := load(t, onnx.Config{})
	long := strings.Repeat("aspirin lowers the risk of heart attacks ", 100) // 8 tokens each ("attack", "##s"), limit 64
	short := "aspirin lowers the risk"
	vs, rep, err := e.EmbedReport(context.Background(), []string{short, long}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep) != 1 || rep[0].Index != 1 || rep[0].Kept != 62 || rep[0].Tokens != 800 {
		t.Fatalf("report %+v, want text 1 cut from 800 to 62 tokens", rep)
	}
	// The cut text embeds like its first 62 tokens.
	cut := strings.Repeat("aspirin lowers the risk of heart attacks ", 7) + "aspirin lowers the risk of heart"
	want, err := e.Embed(context.Background(), []string{cut}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for j := range want[0] {
		if math.Abs(float64(vs[1][j]-want[0][j])) > 1e-5 {
			t.Fatalf("dim %d: %v, first 62 tokens give %v", j, vs[1][j], want[0][j])
		}
	}
	// A shorter MaxLen is honoured.
	e8 := load(t, onnx.Config{MaxLen: 8})
	_, rep, err = e8.EmbedReport(context.Background(), []string{short + " " + short}, embed.Query)
	if err != nil || len(rep) != 1 || rep[0].Kept != 6 {
		t.Fatalf("MaxLen 8: %v %+v", err, rep)
	}
}

func TestModelErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty := t.TempDir()
	noTok := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(tiny, "model.onnx"))
	_ = os.WriteFile(filepath.Join(noTok, "model.onnx"), b, 0o644)
	badCfg := t.TempDir()
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		b, _ := os.ReadFile(filepath.Join(tiny, f))
		_ = os.WriteFile(filepath.Join(badCfg, f), b, 0o644)
	}
	_ = os.WriteFile(filepath.Join(badCfg, "config.json"), []byte(`{"hidden_size": `), 0o644)
	for _, tc := range []struct {
		dir, file, problem string
	}{
		{filepath.Join(empty, "nope"), "", "not a directory"},
		{empty, "model.onnx", "missing"},
		{noTok, "tokenizer.json", "missing"},
		{badCfg, "config.json", "malformed JSON"},
		// A cross-encoder's output is [batch, 1]: not an embedding.
		{"../../testdata/models/tiny-cross-encoder", "model.onnx", "shape"},
	} {
		_, err := onnx.New(ctx, onnx.Config{Dir: tc.dir})
		var me *onnx.ModelError
		if !errors.As(err, &me) || me.File != tc.file || !strings.Contains(me.Problem, tc.problem) {
			t.Fatalf("%s: %v, want a ModelError about %s: %s", tc.dir, err, tc.file, tc.problem)
		}
	}
}
