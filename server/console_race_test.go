package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleLateBrowse: a browse answered after a newer one never replaces the newer one's
// list. The page is served through a proxy on loopback that holds every unfiltered browse
// for 1.5 s, so the list the tab's opening asks for comes back after the filtered one the
// user asked for since; the page must keep showing the filtered list.
func TestConsoleLateBrowse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := browser(t)
	target, err := url.Parse(w.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	hold := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/browse" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(rw, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var q struct{ Text string }
			if json.Unmarshal(body, &q) == nil && q.Text == "" {
				time.Sleep(1500 * time.Millisecond)
			}
		}
		proxy.ServeHTTP(rw, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: hold, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)                  //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() }) //nolint:errcheck // closing a test server

	signIn(t, ctx, "http://"+ln.Addr().String(), w.keys["ana"])
	run(t, ctx, "open browse, then search at once", chromedp.Click(chromedp.ID("tab-browse")),
		chromedp.SetValue(chromedp.ID("b-text"), "crane 3 was"), submit("browse-form"))
	const filtered = `(l => l.length > 0 && [...l].every((li) => li.textContent.includes("crane 3 was")))(document.querySelectorAll("#memories li"))`
	waitFor(t, ctx, "the filtered list", filtered)
	time.Sleep(2500 * time.Millisecond) // the unfiltered answer arrives meanwhile
	if !eval[bool](t, ctx, filtered) {
		t.Fatalf("the late unfiltered browse replaced the filtered list: %d memories listed",
			eval[int](t, ctx, `document.querySelectorAll("#memories li").length`))
	}
}
