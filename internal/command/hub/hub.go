// Package hub downloads a sentence-transformers ONNX export from a Hugging Face style hub:
// it lists the repository's files (GET {base}/api/models/{repo}/tree/{revision}), fetches the
// ones a model directory needs (GET {base}/{repo}/resolve/{revision}/{path}), resumes partial
// downloads with Range requests, and verifies every file's size and checksum (SHA-256 for
// LFS files, the git blob SHA-1 for the others) before moving it into place.
package hub

import (
	"context"
	"crypto/sha1" //nolint:gosec // the hub names small files by their git blob SHA-1
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultBaseURL is the public hub.
const DefaultBaseURL = "https://huggingface.co"

// Client talks to one hub.
type Client struct {
	BaseURL string       // "" : DefaultBaseURL
	Token   string       // bearer token for gated or private repositories ("" for none)
	HTTP    *http.Client // nil: a client with a 30 s header timeout
}

// Progress reports a download: the file, bytes done and total for it, and for all files.
type Progress struct {
	File             string
	Done, Size       int64
	AllDone, AllSize int64
	Resumed          int64 // bytes found on disk from an earlier attempt
}

// Options choose what to fetch.
type Options struct {
	Revision string // branch, tag or commit ("": main)
	// ONNXFile is the repository path of the ONNX graph ("": onnx/model.onnx, else
	// model.onnx). It is saved as model.onnx.
	ONNXFile string
	// Progress, when set, is called as bytes arrive (at most every 100 ms per file, and at
	// the end of each file).
	Progress func(Progress)
}

// wanted are the files of a model directory besides the ONNX graph; missing ones are
// skipped, except tokenizer.json.
var wanted = []string{"tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json",
	"sentence_bert_config.json", "modules.json", "1_Pooling/config.json"}

// Error is a download that failed for a reason worth naming: which file and why.
type Error struct {
	Repo, File string
	Problem    string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("hub %s: %s", e.Repo, e.Problem)
	}
	return fmt.Sprintf("hub %s: %s: %s", e.Repo, e.File, e.Problem)
}

type entry struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	OID  string `json:"oid"`
	LFS  *struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	} `json:"lfs"`
}

type file struct {
	src, dst string
	size     int64
	sum      string // hex
	lfs      bool
}

// Pull downloads repo into dir (created if missing) and returns the files written. Files
// already complete are verified and kept; partial ones (*.part) are resumed.
func (c *Client) Pull(ctx context.Context, repo, dir string, o Options) ([]string, error) {
	if !validRepo(repo) {
		return nil, &Error{Repo: repo, Problem: `want a repository name like "owner/name"`}
	}
	if o.Revision == "" {
		o.Revision = "main"
	}
	files, err := c.plan(ctx, repo, o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var all int64
	for _, f := range files {
		all += f.size
	}
	p := Progress{AllSize: all}
	var out []string
	for _, f := range files {
		if err := c.fetch(ctx, repo, o, f, dir, &p); err != nil {
			return out, err
		}
		out = append(out, f.dst)
	}
	return out, nil
}

func validRepo(repo string) bool {
	parts := strings.Split(repo, "/")
	if len(parts) != 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "?#%\\ ") {
			return false
		}
	}
	return true
}

func (c *Client) base() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c *Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second}}
}

func (c *Client) get(ctx context.Context, u string, from int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if from > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", from))
	}
	return c.client().Do(req)
}

// plan lists the repository and picks the files to fetch.
func (c *Client) plan(ctx context.Context, repo string, o Options) ([]file, error) {
	u := fmt.Sprintf("%s/api/models/%s/tree/%s?recursive=true", c.base(), repo, url.PathEscape(o.Revision))
	res, err := c.get(ctx, u, 0)
	if err != nil {
		return nil, &Error{Repo: repo, Problem: err.Error()}
	}
	defer res.Body.Close() //nolint:errcheck // read in full below
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return nil, &Error{Repo: repo, Problem: fmt.Sprintf("listing answered %d: %s", res.StatusCode, strings.TrimSpace(string(b)))}
	}
	var entries []entry
	if err := json.NewDecoder(io.LimitReader(res.Body, 64<<20)).Decode(&entries); err != nil {
		return nil, &Error{Repo: repo, Problem: "malformed listing: " + err.Error()}
	}
	byPath := map[string]entry{}
	for _, e := range entries {
		if e.Type == "file" {
			byPath[e.Path] = e
		}
	}
	pick := func(src, dst string) (file, bool) {
		e, ok := byPath[src]
		if !ok {
			return file{}, false
		}
		f := file{src: src, dst: dst, size: e.Size, sum: e.OID}
		if e.LFS != nil {
			f.size, f.sum, f.lfs = e.LFS.Size, e.LFS.OID, true
		}
		return f, true
	}
	var out []file
	onnxSrc := o.ONNXFile
	if onnxSrc == "" {
		onnxSrc = "onnx/model.onnx"
		if _, ok := byPath[onnxSrc]; !ok {
			onnxSrc = "model.onnx"
		}
	}
	f, ok := pick(onnxSrc, "model.onnx")
	if !ok {
		return nil, &Error{Repo: repo, File: onnxSrc, Problem: "not in the repository (an ONNX export has onnx/model.onnx or model.onnx)"}
	}
	out = append(out, f)
	for _, w := range wanted {
		f, ok := pick(w, w)
		if !ok {
			if w == "tokenizer.json" {
				return nil, &Error{Repo: repo, File: w, Problem: "not in the repository"}
			}
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// fetch downloads one file into dir/dst through dst.part, resuming a partial download, and
// moves it into place only once size and checksum match.
func (c *Client) fetch(ctx context.Context, repo string, o Options, f file, dir string, p *Progress) error {
	dst := filepath.Join(dir, filepath.FromSlash(f.dst))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if st, err := os.Stat(dst); err == nil && st.Size() == f.size {
		if err := verify(dst, f); err == nil {
			p.AllDone += f.size
			c.report(o, p, f, f.size, true)
			return nil
		}
	}
	part := dst + ".part"
	var have int64
	if st, err := os.Stat(part); err == nil && st.Size() <= f.size {
		have = st.Size()
	}
	u := fmt.Sprintf("%s/%s/resolve/%s/%s", c.base(), repo, url.PathEscape(o.Revision), escapePath(f.src))
	res, err := c.get(ctx, u, have)
	if err != nil {
		return &Error{Repo: repo, File: f.src, Problem: err.Error()}
	}
	defer res.Body.Close() //nolint:errcheck // read to the end or abandoned on error
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case res.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
		p.Resumed = have
	case res.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
		p.Resumed = 0
	case res.StatusCode == http.StatusRequestedRangeNotSatisfiable && have == f.size:
		// Complete already; checked below.
	default:
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return &Error{Repo: repo, File: f.src, Problem: fmt.Sprintf("download answered %d: %s", res.StatusCode, strings.TrimSpace(string(b)))}
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	done := have
	last := time.Now()
	buf := make([]byte, 256<<10)
	var copyErr error
	if res.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		for {
			n, rerr := res.Body.Read(buf)
			if n > 0 {
				if done+int64(n) > f.size {
					copyErr = &Error{Repo: repo, File: f.src, Problem: fmt.Sprintf("more than the listed %d bytes", f.size)}
					break
				}
				if _, werr := out.Write(buf[:n]); werr != nil {
					copyErr = werr
					break
				}
				done += int64(n)
				if time.Since(last) >= 100*time.Millisecond {
					last = time.Now()
					c.report(o, p, f, done, false)
				}
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				copyErr = &Error{Repo: repo, File: f.src, Problem: fmt.Sprintf("interrupted after %d of %d bytes (run again to resume): %v", done, f.size, rerr)}
				break
			}
		}
	}
	if err := out.Close(); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		return copyErr
	}
	if done != f.size {
		return &Error{Repo: repo, File: f.src, Problem: fmt.Sprintf("got %d bytes, the listing says %d (run again to resume)", done, f.size)}
	}
	if err := verify(part, f); err != nil {
		_ = os.Remove(part) // a corrupt file cannot be resumed
		return &Error{Repo: repo, File: f.src, Problem: err.Error()}
	}
	if err := os.Rename(part, dst); err != nil {
		return err
	}
	p.AllDone += f.size
	c.report(o, p, f, f.size, true)
	return nil
}

func (c *Client) report(o Options, p *Progress, f file, done int64, final bool) {
	if o.Progress == nil {
		return
	}
	q := *p
	q.File, q.Done, q.Size = f.dst, done, f.size
	if !final {
		q.AllDone += done
	}
	o.Progress(q)
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return path.Join(parts...)
}

// verify checks a file's checksum: SHA-256 for LFS files, the git blob SHA-1 otherwise.
func verify(name string, f file) error {
	fh, err := os.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close() //nolint:errcheck // read only
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if st.Size() != f.size {
		return fmt.Errorf("%d bytes, the listing says %d", st.Size(), f.size)
	}
	var h hash.Hash
	if f.lfs {
		h = sha256.New()
	} else {
		h = sha1.New() //nolint:gosec // git's object id, not a security boundary (LFS files use SHA-256)
		fmt.Fprintf(h, "blob %d\x00", f.size)
	}
	if _, err := io.Copy(h, fh); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, f.sum) {
		return errors.New("checksum mismatch: got " + got + ", the listing says " + f.sum)
	}
	return nil
}
