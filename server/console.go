package server

import (
	"embed"
	"io/fs"
	"net/http"
)

// The console (recall serve at /console/): static files only, embedded in the binary. The
// page calls the API's own routes with the key its user types in, kept in the tab's
// sessionStorage and sent as a bearer header, never in a URL; it has no route of its own.
//
//go:embed console
var consoleFiles embed.FS

// consoleCSP lets the page load only its own script and style and talk only to this origin:
// no inline script or style, no framing, no form posts, no plugins.
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func consoleHandler() http.Handler {
	sub, err := fs.Sub(consoleFiles, "console")
	if err != nil {
		panic(err) // embedded at build time
	}
	files := http.StripPrefix("/console/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", consoleCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
