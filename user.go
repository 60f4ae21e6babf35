package recall

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/recall-engine/recall/internal/scope"
)

// User is who asks: rows are visible when they share a scope with Read, and access is
// recorded on the packed memories that lie within Write. Label, when set, names the asking
// speaker: the search text becomes "{query}\nThe asking speaker is {Label}." (at most
// MaxLabelLen bytes, so the label cannot carry a query past the query's limit).
type User struct {
	ID    string
	Read  []string
	Write []string
	Label string
}

// MaxLabelLen bounds User.Label, in bytes.
const MaxLabelLen = 256

type caller struct {
	read, write []string
}

func (u User) check() (caller, error) {
	read, err := scope.Normalize("user.read_scopes", u.Read)
	if err != nil {
		return caller{}, scopeError(err)
	}
	if len(read) == 0 {
		return caller{}, &InputError{Field: "user.read_scopes", Problem: "no read scopes: the user could see nothing"}
	}
	write, err := scope.Normalize("user.write_scopes", u.Write)
	if err != nil {
		return caller{}, scopeError(err)
	}
	for _, w := range write {
		if !contains(read, w) {
			return caller{}, &InputError{Field: "user.write_scopes", Problem: fmt.Sprintf("%q is not also a read scope", w)}
		}
	}
	if err := checkText("user.label", u.Label, false); err != nil {
		return caller{}, err
	}
	if len(u.Label) > MaxLabelLen {
		return caller{}, &InputError{Field: "user.label", Problem: fmt.Sprintf("%d bytes: a label names the asking speaker", len(u.Label)), Limit: MaxLabelLen}
	}
	return caller{read: read, write: write}, nil
}

func contains(sorted []string, s string) bool {
	for _, x := range sorted {
		if x == s {
			return true
		}
	}
	return false
}

func scopeError(err error) error {
	var se *scope.Error
	if !errors.As(err, &se) {
		return err
	}
	p := se.Problem
	if se.Value != "" {
		p = fmt.Sprintf("%q: %s", se.Value, se.Problem)
	}
	return &InputError{Field: se.Field, Problem: p, Limit: se.Limit}
}

// checkText refuses invalid UTF-8 and NUL bytes, and blank text when required.
func checkText(field, s string, required bool) error {
	switch {
	case !utf8.ValidString(s):
		return &InputError{Field: field, Problem: "invalid UTF-8"}
	case strings.IndexByte(s, 0) >= 0:
		return &InputError{Field: field, Problem: "contains a NUL byte"}
	case required && strings.TrimSpace(s) == "":
		return &InputError{Field: field, Problem: "empty"}
	}
	return nil
}
