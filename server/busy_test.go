package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestBusyIs429: with every slot of a kind taken, a call of that kind is refused at once, its
// work never run, with 429 and Retry-After naming the limit; a call of the other kind still
// runs; a released slot serves the next call.
func TestBusyIs429(t *testing.T) {
	t.Parallel()
	s := &Server{slots: make(chan struct{}, 2), writes: make(chan struct{}, 1)}
	s.slots <- struct{}{}
	s.slots <- struct{}{}
	ran := 0
	work := func(context.Context) error { ran++; return nil }
	err := s.call(context.Background(), readCall, work)
	p := problemFor(err)
	if ran != 0 || p.Status != http.StatusTooManyRequests || p.retryAfter != 1 || !strings.Contains(p.Detail, "2 recalls") || !strings.Contains(p.Detail, "--max-concurrent)") {
		t.Fatalf("a read on a full server: ran %d, %v %+v", ran, err, p)
	}
	if err := s.call(context.Background(), writeCall, work); err != nil || ran != 1 {
		t.Fatalf("a write beside full reads: %v, ran %d", err, ran)
	}
	s.writes <- struct{}{}
	if p := problemFor(s.call(context.Background(), writeCall, work)); ran != 1 || p.Status != http.StatusTooManyRequests || !strings.Contains(p.Detail, "1 writes") {
		t.Fatalf("a write on full write slots: ran %d, %+v", ran, p)
	}
	<-s.slots
	if err := s.call(context.Background(), readCall, work); err != nil || ran != 2 || len(s.slots) != 1 {
		t.Fatalf("a read after a slot was released: %v, ran %d, %d slots held after", err, ran, len(s.slots))
	}
}
