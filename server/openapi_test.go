package server

import (
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite openapi.json")

// TestOpenAPIFile: openapi.json is what the routes and the body types make.
func TestOpenAPIFile(t *testing.T) {
	want, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(OpenAPI) != string(want) {
		t.Fatal("openapi.json is stale: go test ./server -run OpenAPI -update")
	}
}

// TestRoutesAreTheTable: the mux serves every route of apiRoutes (the OpenAPI document's) at
// its method, and nothing else: a route's method is never answered "no route", a method it
// does not take is 405 with Allow, and a handler without a route (or a route without a
// handler) makes Handler panic.
func TestRoutesAreTheTable(t *testing.T) {
	s := &Server{cfg: Config{Logger: slog.New(slog.DiscardHandler)}, metrics: newMetrics(nil), slots: make(chan struct{}, 1), writes: make(chan struct{}, 1)}
	h := s.Handler()
	for _, r := range apiRoutes {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(strings.ToUpper(r.Method), r.Path, nil))
		if rec.Code == http.StatusNotFound || rec.Code == http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d %s", r.Method, r.Path, rec.Code, rec.Body)
		}
		if r.Path == "/mcp" {
			continue
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, r.Path, nil))
		if rec.Code != http.StatusMethodNotAllowed || !strings.Contains(rec.Header().Get("Allow"), strings.ToUpper(r.Method)) {
			t.Errorf("PUT %s: %d, Allow %q", r.Path, rec.Code, rec.Header().Get("Allow"))
		}
	}
	saved := apiRoutes
	defer func() { apiRoutes = saved }()
	for _, routes := range [][]apiRoute{saved[1:], append(slices.Clone(saved), apiRoute{Method: "get", Path: "/v1/nothing"})} {
		apiRoutes = routes
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Handler with %d routes for %d handlers did not panic", len(routes), len(saved))
				}
			}()
			s.Handler()
		}()
	}
}
