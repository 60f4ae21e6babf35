package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/embed/onnx"
)

// hubOf serves the files of dir as repository repo in the hub's layout, every file as LFS,
// the ONNX graph under onnx/ as sentence-transformers exports keep it.
func hubOf(t *testing.T, repo, dir string) *httptest.Server {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "model.onnx" {
			rel = "onnx/model.onnx"
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/models/"+repo+"/tree/main" {
			var out []map[string]any
			for p, b := range files {
				sum := sha256.Sum256(b)
				out = append(out, map[string]any{"type": "file", "path": p, "size": len(b), "oid": "x",
					"lfs": map[string]any{"oid": hex.EncodeToString(sum[:]), "size": len(b)}})
			}
			_ = json.NewEncoder(w).Encode(out)
			return
		}
		p := strings.TrimPrefix(r.URL.Path, "/"+repo+"/resolve/main/")
		b, ok := files[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(s.Close)
	return s
}

func TestModelsPull(t *testing.T) {
	t.Parallel()
	src := "../../testdata/models/tiny-embedder"
	s := hubOf(t, "acme/tiny", src)
	dir := filepath.Join(t.TempDir(), "tiny")
	var out, errOut bytes.Buffer
	m := &Main{cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "RECALL_HUB_URL" {
			return s.URL
		}
		return ""
	}}}
	if code := m.Run(context.Background(), []string{"models", "pull", "acme/tiny", "--dir", dir}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "acme/tiny: 7 files") || !strings.Contains(errOut.String(), "model.onnx") {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
	// The pulled model embeds exactly like the original.
	ctx := context.Background()
	a, err := onnx.New(ctx, onnx.Config{Dir: src})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close() //nolint:errcheck // test teardown
	b, err := onnx.New(ctx, onnx.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close() //nolint:errcheck // test teardown
	va, _ := a.Embed(ctx, []string{"aspirin lowers the risk"}, embed.Query)
	vb, _ := b.Embed(ctx, []string{"aspirin lowers the risk"}, embed.Query)
	for i := range va[0] {
		if va[0][i] != vb[0][i] {
			t.Fatal("the pulled model embeds differently")
		}
	}
	for _, bad := range [][]string{{"models"}, {"models", "pull", "acme/tiny"}, {"models", "push", "x", "--dir", dir}, {"models", "pull", "a/b", "--dir", dir, "--bogus"}} {
		if code := m.Run(ctx, bad); code != 2 {
			t.Fatalf("%v: exit %d, want 2", bad, code)
		}
	}
	if code := m.Run(ctx, []string{"models", "pull", "acme/missing", "--dir", dir}); code != 1 {
		t.Fatalf("missing repo: exit %d", code)
	}
}
