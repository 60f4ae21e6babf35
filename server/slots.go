package server

import (
	"fmt"
	"net/http"
)

// The server's slots: MaxConcurrent recalls (and traces, browses, memory reads) and
// MaxConcurrentWrites writes run at once; a request past them gets 429 with Retry-After.

// tryAcquire takes a recall slot if one is free.
func (s *Server) tryAcquire() bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// acquire takes a recall slot, or answers 429 when all are busy.
func (s *Server) acquire(w http.ResponseWriter) bool {
	if s.tryAcquire() {
		return true
	}
	p := problem(http.StatusTooManyRequests, "busy", fmt.Sprintf("%d recalls are running, the server's limit (--max-concurrent)", cap(s.slots)))
	p.retryAfter = 1
	p.write(w)
	return false
}

func (s *Server) release() { <-s.slots }

// acquireWrite takes a write slot, or answers 429 when all are busy.
func (s *Server) acquireWrite(w http.ResponseWriter) bool {
	select {
	case s.writes <- struct{}{}:
		return true
	default:
		p := problem(http.StatusTooManyRequests, "busy", fmt.Sprintf("%d writes are running, the server's limit (--max-concurrent-writes)", cap(s.writes)))
		p.retryAfter = 1
		p.write(w)
		return false
	}
}

func (s *Server) releaseWrite() { <-s.writes }
