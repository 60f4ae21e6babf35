package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Handler returns the API's routes: one for each of apiRoutes (the table the OpenAPI document
// is made from), with its handler from s.handlers. It panics when the two disagree (a route
// without a handler, a handler without a route), which any test that serves catches.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	allowed := map[string][]string{} // path -> the methods its routes take
	route := func(pattern string, h http.Handler) {
		if method, path, ok := strings.Cut(pattern, " "); ok {
			allowed[path] = append(allowed[path], method)
			if method == http.MethodGet {
				allowed[path] = append(allowed[path], http.MethodHead)
			}
		}
		mux.Handle(pattern, s.observe(pattern, h))
	}
	hs := s.handlers()
	for _, r := range apiRoutes {
		key := r.Method + " " + r.Path
		h, ok := hs[key]
		if !ok {
			panic("server: route " + key + " has no handler")
		}
		delete(hs, key)
		if r.Path == "/mcp" { // the streamable transport also GETs and DELETEs: every method
			route(r.Path, h)
			continue
		}
		route(strings.ToUpper(r.Method)+" "+r.Path, h)
	}
	for key := range hs {
		panic("server: handler " + key + " has no route in apiRoutes")
	}
	route("GET /console", http.RedirectHandler("/console/", http.StatusMovedPermanently))
	mux.Handle("/", s.observe("other", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if methods, ok := allowed[r.URL.Path]; ok {
			methods = slices.Sorted(slices.Values(methods))
			w.Header().Set("Allow", strings.Join(methods, ", "))
			problem(http.StatusMethodNotAllowed, "method", fmt.Sprintf("%s %s: the route takes %s", r.Method, r.URL.Path, strings.Join(methods, ", "))).write(w)
			return
		}
		problem(http.StatusNotFound, "not-found", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path)).write(w)
	})))
	return mux
}

// handlers are the API's handlers by route, as apiRoutes names them.
func (s *Server) handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"post /v1/recall":           s.authed(s.recall),
		"post /v1/trace":            s.authed(s.trace),
		"post /v1/memories":         s.authed(s.write),
		"delete /v1/memories":       s.authed(s.delete),
		"post /v1/summarize":        s.authed(s.summarize),
		"post /v1/prune":            s.authed(s.prune),
		"post /v1/supersede":        s.authed(s.supersede),
		"get /v1/me":                s.authed(s.me),
		"post /v1/browse":           s.authed(s.browse),
		"post /v1/memory":           s.authed(s.memory),
		"post /v1/ingest":           s.authed(s.ingest),
		"delete /v1/scopes/{scope}": s.authed(s.eraseScope),
		"get /v1/export":            s.authed(s.exportScope),
		"post /mcp":                 s.mcpHandler(),
		"get /console/":             consoleHandler(),
		"get /healthz": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("ok\n"))
		}),
		"get /readyz":  http.HandlerFunc(s.ready),
		"get /metrics": s.metricsAuth(s.metrics.handler()),
		"get /openapi.json": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(OpenAPI)
		}),
	}
}
