package server_test

import (
	"net/http"
	"testing"
)

// TestWrongMethod: a route asked with a method it does not take answers 405 with Allow
// naming the ones it does (and a problem body), before any key is checked.
func TestWrongMethod(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/v1/recall", "POST"},
		{"PUT", "/v1/memories", "DELETE, POST"},
		{"POST", "/healthz", "GET, HEAD"},
	} {
		r := w.do(t, c.method, c.path, w.keys["ana"], nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q (%s)", c.method, c.path, r.status, r.header.Get("Allow"), c.allow, r.body)
		}
	}
}
