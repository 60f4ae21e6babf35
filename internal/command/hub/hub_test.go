package hub_test

import (
	"bytes"
	"context"
	"crypto/sha1" //nolint:gosec // the hub's git blob ids
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/command/hub"
)

// fakeHub serves one repository in the hub's layout: the tree listing and resolve URLs with
// Range support. cut makes the first download of a file stop halfway.
type fakeHub struct {
	repo   string
	files  map[string][]byte
	lfs    map[string]bool
	badSum map[string]bool
	cut    map[string]bool

	mu     sync.Mutex
	ranges []string
	gets   map[string]int
}

func (h *fakeHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.URL.Path == "/api/models/"+h.repo+"/tree/main" {
		var out []map[string]any
		for p, b := range h.files {
			e := map[string]any{"type": "file", "path": p, "size": len(b)}
			if h.lfs[p] {
				s := sha256.Sum256(b)
				e["lfs"] = map[string]any{"oid": hex.EncodeToString(s[:]), "size": len(b)}
				e["oid"] = "0000"
			} else {
				g := sha1.New() //nolint:gosec // git blob id
				fmt.Fprintf(g, "blob %d\x00", len(b))
				g.Write(b)
				e["oid"] = hex.EncodeToString(g.Sum(nil))
			}
			if h.badSum[p] {
				if l, ok := e["lfs"].(map[string]any); ok {
					l["oid"] = strings.Repeat("ab", 32)
				} else {
					e["oid"] = strings.Repeat("ab", 20)
				}
			}
			out = append(out, e)
		}
		out = append(out, map[string]any{"type": "directory", "path": "onnx"})
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	prefix := "/" + h.repo + "/resolve/main/"
	if !strings.HasPrefix(r.URL.Path, prefix) {
		http.NotFound(w, r)
		return
	}
	p := strings.TrimPrefix(r.URL.Path, prefix)
	b, ok := h.files[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h.gets[p]++
	if rg := r.Header.Get("Range"); rg != "" {
		h.ranges = append(h.ranges, p+" "+rg)
	}
	if h.cut[p] {
		delete(h.cut, p)
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		return // the server closes the connection: the client sees an unexpected EOF
	}
	http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(b))
}

func newHub(t *testing.T) (*fakeHub, *hub.Client) {
	r := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(r.IntN(256))
	}
	h := &fakeHub{
		repo: "acme/mini-embedder",
		files: map[string][]byte{
			"onnx/model.onnx":       big,
			"tokenizer.json":        []byte(`{"model": {"type": "WordPiece"}}`),
			"config.json":           []byte(`{"hidden_size": 384}`),
			"1_Pooling/config.json": []byte(`{"pooling_mode_mean_tokens": true}`),
			"README.md":             []byte("not fetched"),
		},
		lfs:    map[string]bool{"onnx/model.onnx": true},
		badSum: map[string]bool{},
		cut:    map[string]bool{},
		gets:   map[string]int{},
	}
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return h, &hub.Client{BaseURL: s.URL}
}

func TestPull(t *testing.T) {
	t.Parallel()
	h, c := newHub(t)
	dir := filepath.Join(t.TempDir(), "model")
	var last hub.Progress
	calls := 0
	files, err := c.Pull(context.Background(), h.repo, dir, hub.Options{Progress: func(p hub.Progress) { last = p; calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files %v", files)
	}
	for src, dst := range map[string]string{"onnx/model.onnx": "model.onnx", "tokenizer.json": "tokenizer.json", "config.json": "config.json", "1_Pooling/config.json": "1_Pooling/config.json"} {
		b, err := os.ReadFile(filepath.Join(dir, dst))
		if err != nil || !bytes.Equal(b, h.files[src]) {
			t.Fatalf("%s: %v, %d bytes", dst, err, len(b))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err == nil {
		t.Fatal("README.md fetched")
	}
	if calls < 4 || last.AllDone != last.AllSize || last.AllSize != int64(3<<20+len(h.files["tokenizer.json"])+len(h.files["config.json"])+len(h.files["1_Pooling/config.json"])) {
		t.Fatalf("%d progress calls, last %+v", calls, last)
	}
	// A second pull verifies and keeps what is there: no download.
	if _, err := c.Pull(context.Background(), h.repo, dir, hub.Options{}); err != nil {
		t.Fatal(err)
	}
	if h.gets["onnx/model.onnx"] != 1 {
		t.Fatalf("model downloaded %d times", h.gets["onnx/model.onnx"])
	}
}

func TestPullResumes(t *testing.T) {
	t.Parallel()
	h, c := newHub(t)
	h.cut["onnx/model.onnx"] = true
	dir := t.TempDir()
	_, err := c.Pull(context.Background(), h.repo, dir, hub.Options{})
	var he *hub.Error
	if !errors.As(err, &he) || he.File != "onnx/model.onnx" || !strings.Contains(he.Problem, "resume") {
		t.Fatalf("interrupted pull: %v", err)
	}
	st, err := os.Stat(filepath.Join(dir, "model.onnx.part"))
	if err != nil || st.Size() != 3<<19 {
		t.Fatalf("partial file: %v, %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
		t.Fatal("an incomplete model.onnx is in place")
	}
	var resumed int64
	if _, err := c.Pull(context.Background(), h.repo, dir, hub.Options{Progress: func(p hub.Progress) {
		if p.File == "model.onnx" {
			resumed = p.Resumed
		}
	}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if !bytes.Equal(b, h.files["onnx/model.onnx"]) {
		t.Fatal("resumed file differs")
	}
	if len(h.ranges) != 1 || h.ranges[0] != fmt.Sprintf("onnx/model.onnx bytes=%d-", 3<<19) || resumed != 3<<19 {
		t.Fatalf("range requests %v, resumed %d", h.ranges, resumed)
	}
}

func TestPullRefusesBadFiles(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"onnx/model.onnx", "config.json"} {
		h, c := newHub(t)
		h.badSum[f] = true
		dir := t.TempDir()
		_, err := c.Pull(context.Background(), h.repo, dir, hub.Options{})
		var he *hub.Error
		if !errors.As(err, &he) || he.File != f || !strings.Contains(he.Problem, "checksum mismatch") {
			t.Fatalf("%s: %v", f, err)
		}
		base := filepath.Base(f)
		if f == "onnx/model.onnx" {
			base = "model.onnx"
		}
		for _, n := range []string{base, base + ".part"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				t.Fatalf("%s: %s left behind", f, n)
			}
		}
	}
	h, c := newHub(t)
	for name, want := range map[string]string{"acme/nothing-here": "listing answered 404", "not-a-repo": "owner/name", "a/../b": "owner/name"} {
		_, err := c.Pull(context.Background(), name, t.TempDir(), hub.Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	_, err := c.Pull(context.Background(), h.repo, t.TempDir(), hub.Options{ONNXFile: "onnx/model_int8.onnx"})
	if err == nil || !strings.Contains(err.Error(), "not in the repository") {
		t.Fatalf("missing onnx file: %v", err)
	}
}
