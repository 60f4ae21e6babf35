package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/statement"
)

func engineConfig(t *testing.T, env map[string]string, args ...string) (recall.Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var f EngineFlags
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.Config(context.Background(), func(k string) string { return env[k] })
}

// TestEngineFlags: the one settings loader of every command: --set over a settings file
// over the profile's settings, RECALL_SETTINGS when --settings is not given, the learned
// order, the profile; bad values are usage errors naming the flag.
func TestEngineFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte(`{"rrf_k": 7, "bm25_k1": 1.3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := engineConfig(t, nil, "--settings", file, "--set", "rrf_k=30", "--set", "weights.vector=0.5", "--set", `timeout="3s"`)
	if err != nil {
		t.Fatal(err)
	}
	h := recall.HashingProfile().Settings
	s := *cfg.Settings
	if s.RRFK != 30 || s.BM25K1 != 1.3 || s.Weights[statement.Vector] != 0.5 || s.Weights[statement.BM25] != h.Weights[statement.BM25] || s.Timeout.Seconds() != 3 || s.K != h.K {
		t.Fatalf("settings %+v", s)
	}
	cfg, err = engineConfig(t, map[string]string{"RECALL_SETTINGS": file})
	if err != nil || cfg.Settings == nil || cfg.Settings.RRFK != 7 {
		t.Fatalf("RECALL_SETTINGS: %v %+v", err, cfg.Settings)
	}
	cfg, err = engineConfig(t, nil)
	if err != nil || cfg.Settings != nil || cfg.Order != nil || cfg.Embedder != nil {
		t.Fatalf("no flags: %v %+v", err, cfg)
	}
	cfg, err = engineConfig(t, nil, "--profile", "external", "--set", "k=50", "--order", "off")
	if err != nil || cfg.Settings.RRFK != 60 || cfg.Settings.K != 50 || cfg.Order == nil || cfg.Order.Name != "off" {
		t.Fatalf("external profile: %v %+v", err, cfg.Settings)
	}
	model := filepath.Join(dir, "order.json")
	if err := os.WriteFile(model, []byte(`{"version": 1, "name": "mine", "weights": {"best": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err = engineConfig(t, nil, "--order", model); err != nil || cfg.Order.Name != "mine" {
		t.Fatalf("--order file: %v %+v", err, cfg.Order)
	}
	for _, bad := range [][]string{
		{"--set", "rrf_kk=3"},
		{"--set", "rrf_k"},
		{"--set", "rrf_k=-1"},
		{"--set", "weights.sideways=1"},
		{"--settings", filepath.Join(dir, "missing.json")},
		{"--order", filepath.Join(dir, "missing.json")},
		{"--profile", "fancy"},
		{"--embed-url", "http://127.0.0.1:1/v1"},
		{"--embed-url", "http://127.0.0.1:1/v1", "--embed-onnx", dir},
	} {
		_, err := engineConfig(t, nil, bad...)
		flagName := strings.TrimPrefix(bad[0], "-")
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), flagName) {
			t.Errorf("%v: %v, want a usage error naming %s", bad, err, flagName)
		}
	}
}
