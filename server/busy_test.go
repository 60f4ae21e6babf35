package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBusyIs429: with every recall slot taken, a recall is refused at once with 429 and
// Retry-After, before anything is read from the database.
func TestBusyIs429(t *testing.T) {
	t.Parallel()
	s := &Server{slots: make(chan struct{}, 2)}
	s.slots <- struct{}{}
	s.slots <- struct{}{}
	rec := httptest.NewRecorder()
	if s.acquire(rec) {
		t.Fatal("acquired a slot of a full server")
	}
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "2 recalls") {
		t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	s.release()
	if !s.acquire(httptest.NewRecorder()) {
		t.Fatal("no slot after one was released")
	}
}
