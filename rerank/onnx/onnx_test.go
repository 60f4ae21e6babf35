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

	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
	"github.com/recall-engine/recall/rerank/onnx"
)

// eachBackend runs f once per backend this test binary has (ONNX Runtime too when built with
// -tags ort), as subtests.
func eachBackend(t *testing.T, f func(t *testing.T, b onnx.Backend)) {
	bs := []onnx.Backend{onnx.BackendGo}
	if ortrun.Built {
		bs = append(bs, onnx.BackendORT)
	}
	for _, b := range bs {
		t.Run(string(b), func(t *testing.T) { f(t, b) })
	}
}

const tiny = "../../testdata/models/tiny-cross-encoder"

func load(t *testing.T, cfg onnx.Config) *onnx.CrossEncoder {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tiny
	}
	c, err := onnx.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestConformance(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b onnx.Backend) {
		modeltest.Reranker(t, load(t, onnx.Config{BatchSize: 4, Backend: b}), 1e-5)
	})
}

// TestMatchesReference compares with a numpy forward pass over the same weights, tokenized
// as a BERT pair ([CLS] query [SEP] document [SEP], token types 0 then 1) by the generator's
// own WordPiece code.
func TestMatchesReference(t *testing.T) {
	t.Parallel()
	var ref struct {
		Query  string    `json:"query"`
		Texts  []string  `json:"texts"`
		IDs    [][]int   `json:"ids"`
		Scores []float64 `json:"scores"`
	}
	b, err := os.ReadFile(filepath.Join(tiny, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	eachBackend(t, func(t *testing.T, b onnx.Backend) {
		c := load(t, onnx.Config{Backend: b})
		got, err := c.Score(context.Background(), ref.Query, ref.Texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range ref.Scores {
			if d := math.Abs(float64(got[i]) - want); d > 1e-5 {
				t.Fatalf("document %d: %v, reference %v", i, got[i], want)
			}
		}
	})
}

func TestTruncation(t *testing.T) {
	t.Parallel()
	c := load(t, onnx.Config{})
	long := strings.Repeat("aspirin lowers the risk of heart attacks ", 20) // 160 tokens, limit 64
	s, rep, err := c.ScoreReport(context.Background(), "aspirin risk", []string{"aspirin", long})
	if err != nil {
		t.Fatal(err)
	}
	// 64 - 3 specials - 2 query tokens = 59 for the document.
	if rep.QueryTruncated || len(rep.Truncated) != 1 || rep.Truncated[0].Index != 1 || rep.Truncated[0].Tokens != 160 || rep.Truncated[0].Kept != 59 {
		t.Fatalf("report %+v", rep)
	}
	cut := strings.Repeat("aspirin lowers the risk of heart attacks ", 7) + "aspirin lowers the"
	want, err := c.Score(context.Background(), "aspirin risk", []string{cut})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(s[1]-want[0])) > 1e-6 {
		t.Fatalf("cut document scores %v, its first 59 tokens %v", s[1], want[0])
	}
	// A query longer than the model: cut to half, no crash.
	_, rep, err = c.ScoreReport(context.Background(), long, []string{long})
	if err != nil || !rep.QueryTruncated || rep.Truncated[0].Kept != 61-30 {
		t.Fatalf("long query: %v %+v", err, rep)
	}
}

func TestModelErrors(t *testing.T) {
	t.Parallel()
	// An embedder's output is [batch, sequence, hidden]: not a cross-encoder.
	var me *onnx.ModelError
	eachBackend(t, func(t *testing.T, b onnx.Backend) {
		_, err := onnx.New(context.Background(), onnx.Config{Dir: "../../testdata/models/tiny-embedder", Backend: b})
		if !errors.As(err, &me) || me.File != "model.onnx" || !strings.Contains(me.Problem, "2 dimensional output") {
			t.Fatalf("embedder as cross-encoder: %v", err)
		}
	})
	_, err := onnx.New(context.Background(), onnx.Config{Dir: "../../testdata/models/tiny-embedder", Backend: "tpu"})
	if err == nil || !strings.Contains(err.Error(), "backend") {
		t.Fatalf("unknown backend: %v", err)
	}
	_, err = onnx.New(context.Background(), onnx.Config{Dir: t.TempDir()})
	if !errors.As(err, &me) || me.File != "model.onnx" || !strings.Contains(me.Problem, "missing") {
		t.Fatalf("empty dir: %v", err)
	}
}
