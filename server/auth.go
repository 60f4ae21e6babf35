package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"golang.org/x/time/rate"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/keys"
)

// userFor is the key's user, narrowed by the request: read scopes within the key's, write
// scopes within the key's and the request's read scopes (by default, the key's write scopes
// that are still read). A scope the key may not use is 403.
func userFor(k keys.Key, s Scopes, label string) (recall.User, *Problem) {
	u := recall.User{ID: k.User, Read: k.Read, Label: k.Label}
	if label != "" {
		u.Label = label
	}
	if len(s.Read) > 0 {
		for i, sc := range s.Read {
			if !slices.Contains(k.Read, sc) {
				return u, problem(http.StatusForbidden, "scope", fmt.Sprintf("the key may not read scope %q", sc),
					FieldError{Field: fmt.Sprintf("read[%d]", i), Problem: "not one of the key's read scopes"})
			}
		}
		u.Read = s.Read
	}
	if len(s.Write) > 0 {
		for i, sc := range s.Write {
			if !slices.Contains(k.Write, sc) {
				return u, problem(http.StatusForbidden, "scope", fmt.Sprintf("the key may not write scope %q", sc),
					FieldError{Field: fmt.Sprintf("write[%d]", i), Problem: "not one of the key's write scopes"})
			}
		}
		u.Write = s.Write
		return u, nil
	}
	for _, sc := range k.Write {
		if slices.Contains(u.Read, sc) {
			u.Write = append(u.Write, sc)
		}
	}
	return u, nil
}

// writerFor is the key's user for a write or delete into scopes: each must be one of the
// key's write scopes, and a key without write scopes may not write.
func writerFor(k keys.Key, scopes []string) (recall.User, *Problem) {
	if len(k.Write) == 0 {
		return recall.User{}, problem(http.StatusForbidden, "scope", "the key may not write",
			FieldError{Field: "scopes", Problem: "the key has no write scopes"})
	}
	for i, sc := range scopes {
		if !slices.Contains(k.Write, sc) {
			return recall.User{}, problem(http.StatusForbidden, "scope", fmt.Sprintf("the key may not write scope %q", sc),
				FieldError{Field: fmt.Sprintf("scopes[%d]", i), Problem: "not one of the key's write scopes"})
		}
	}
	return recall.User{ID: k.User, Read: k.Read, Write: k.Write, Label: k.Label}, nil
}

// bearer is the key of an "Authorization: Bearer KEY" header.
func bearer(r *http.Request) (string, bool) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || key == "" {
		return "", false
	}
	return strings.TrimSpace(key), true
}

// lookup authenticates the request's key: nil and a 401 problem when it does not.
func (s *Server) lookup(ctx context.Context, r *http.Request) (keys.Key, *Problem) {
	text, ok := bearer(r)
	if !ok {
		return keys.Key{}, problem(http.StatusUnauthorized, "unauthorized", "no API key: send Authorization: Bearer KEY")
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LookupTimeout)
	defer cancel()
	k, err := keys.Lookup(ctx, s.cfg.Keys, text)
	if errors.Is(err, keys.ErrInvalid) {
		return keys.Key{}, problem(http.StatusUnauthorized, "unauthorized", "the API key is invalid or revoked")
	}
	if err != nil {
		s.cfg.Logger.Error("key lookup", "err", err.Error())
		p := problem(http.StatusServiceUnavailable, "unavailable", "the key could not be checked: the database did not answer")
		p.retryAfter = 5
		return keys.Key{}, p
	}
	return k, nil
}

func (s *Server) authed(h func(http.ResponseWriter, *http.Request, keys.Key)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, p := s.lookup(r.Context(), r)
		if p == nil {
			p = s.keyRate.allow(k.ID)
		}
		if p != nil {
			p.write(w)
			return
		}
		info(r).key = k.ID
		h(w, r, k)
	})
}

// keyLimiters hold each key's token bucket.
type keyLimiters struct {
	rate  rate.Limit
	burst int
	mu    sync.Mutex
	byKey map[string]*rate.Limiter
}

// allow takes a token of key's bucket, or returns the 429 that says when one is back.
func (l *keyLimiters) allow(key string) *Problem {
	l.mu.Lock()
	if l.byKey == nil {
		l.byKey = map[string]*rate.Limiter{}
	}
	lim, ok := l.byKey[key]
	if !ok {
		lim = rate.NewLimiter(l.rate, l.burst)
		l.byKey[key] = lim
	}
	l.mu.Unlock()
	r := lim.Reserve()
	d := r.Delay()
	if d == 0 {
		return nil
	}
	r.Cancel()
	p := problem(http.StatusTooManyRequests, "key-rate", fmt.Sprintf("this key is over its share: %g requests a second, %d at once (--key-rate, --key-burst)", float64(l.rate), l.burst))
	p.retryAfter = int(math.Ceil(d.Seconds()))
	return p
}

// metricsAuth requires Config.MetricsToken as the bearer token of /metrics, when it is set.
func (s *Server) metricsAuth(h http.Handler) http.Handler {
	if s.cfg.MetricsToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(s.cfg.MetricsToken))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := bearer(r)
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			problem(http.StatusUnauthorized, "unauthorized", "/metrics takes the metrics token: send Authorization: Bearer TOKEN").write(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}
