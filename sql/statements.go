package sqltext

import (
	"regexp"
	"strings"
)

// dollarTagRE matches a dollar-quote opening at the start of its input: $$ or $tag$.
var dollarTagRE = regexp.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_]*)?\$`)

// Statements splits a file of SQL into its statements, each without its closing semicolon,
// blank ones dropped. A semicolon ends a statement only outside quotes ('...', "..."),
// dollar quotes ($$...$$, $tag$...$tag$) and comments (-- to the end of the line, /* ... */,
// nested). migrations.ApplyFunctions runs a function file statement by statement: a Citus
// coordinator refuses some of its DDL (CREATE TRIGGER on a distributed table) inside a query
// string of several commands ("cannot insert multiple commands into a prepared statement",
// the form it passes them to the workers in).
func Statements(text string) []string {
	var out []string
	start, depth := 0, 0
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(text)
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			depth, i = 1, i+2
			for i < len(text) && depth > 0 {
				switch {
				case strings.HasPrefix(text[i:], "/*"):
					depth, i = depth+1, i+2
				case strings.HasPrefix(text[i:], "*/"):
					depth, i = depth-1, i+2
				default:
					i++
				}
			}
		case c == '\'' || c == '"':
			// A doubled quote inside is two quoted runs back to back: the same result.
			if j := strings.IndexByte(text[i+1:], c); j >= 0 {
				i += j + 2
			} else {
				i = len(text)
			}
		case c == '$' && dollarTagRE.MatchString(text[i:]) && (i == 0 || !isIdent(text[i-1])):
			tag := dollarTagRE.FindString(text[i:])
			if j := strings.Index(text[i+len(tag):], tag); j >= 0 {
				i += len(tag) + j + len(tag)
			} else {
				i = len(text)
			}
		case c == ';':
			if s := strings.TrimSpace(text[start:i]); s != "" && !onlyComments(s) {
				out = append(out, s)
			}
			i++
			start = i
		default:
			i++
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" && !onlyComments(s) {
		out = append(out, s)
	}
	return out
}

// isIdent reports whether c can be part of an identifier, before which a $ is a positional
// parameter's or an identifier's, not a dollar quote's.
func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// onlyComments reports whether s holds nothing but -- comments and space.
func onlyComments(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
			return false
		}
	}
	return true
}
