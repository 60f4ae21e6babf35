package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// kind is what a call is, for its slot and its timeout, over HTTP and MCP alike: a read (a
// recall, a trace, a browse, a memory's read) or a write (a write, a delete, a supersede, a
// summarize, an ingest).
type kind int

const (
	readCall kind = iota
	writeCall
)

// The server's slots: MaxConcurrent reads and MaxConcurrentWrites writes run at once; a call
// past them is refused busy (429 with Retry-After; an MCP tool error).

// slot takes a slot of kind k, or returns the busy problem naming the limit; release gives
// the slot back.
func (s *Server) slot(k kind) (release func(), p *Problem) {
	ch, what, flag := s.slots, "recalls", "--max-concurrent"
	if k == writeCall {
		ch, what, flag = s.writes, "writes", "--max-concurrent-writes"
	}
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	default:
		p := problem(http.StatusTooManyRequests, "busy", fmt.Sprintf("%d %s are running, the server's limit (%s)", cap(ch), what, flag))
		p.retryAfter = 1
		return nil, p
	}
}

// timeout bounds a call of kind k: RecallTimeout for a read, WriteTimeout for a write.
func (s *Server) timeout(k kind) time.Duration {
	if k == writeCall {
		return s.cfg.WriteTimeout
	}
	return s.cfg.RecallTimeout
}

// call is the one pipeline of a call once its input is decoded and its user made, for HTTP
// (readLike, writeLike) and MCP (toolRecallLike, toolWriteLike) alike: a slot of its kind,
// then run under ctx, which the caller bounded by s.timeout(k) (HTTP from the request's
// arrival: deadline). A busy server's answer is a *busyError; run's error is returned as is,
// for problemFor.
func (s *Server) call(ctx context.Context, k kind, run func(context.Context) error) error {
	release, p := s.slot(k)
	if p != nil {
		return &busyError{p}
	}
	defer release()
	return run(ctx)
}

// busyError is a call refused for want of a slot; problemFor answers its problem.
type busyError struct{ p *Problem }

func (e *busyError) Error() string { return e.p.Detail }

// asBusy is err's busy problem, if it is one.
func asBusy(err error) (*Problem, bool) {
	var b *busyError
	if errors.As(err, &b) {
		return b.p, true
	}
	return nil, false
}
