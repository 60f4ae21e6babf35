package scope

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxScopes+1)
	for i := range many {
		many[i] = "s" + strings.Repeat("x", i)
	}
	tests := []struct {
		name      string
		in        []string
		want      []string
		wantField string
	}{
		{name: "sorted and deduplicated", in: []string{"b", "a", "b", "ops:eu"}, want: []string{"a", "b", "ops:eu"}},
		{name: "empty set is allowed", in: nil, want: []string{}},
		{name: "every allowed character", in: []string{"A-z_0.9:/@"}, want: []string{"A-z_0.9:/@"}},
		{name: "empty name", in: []string{"a", ""}, wantField: "read_scopes[1]"},
		{name: "space", in: []string{"a b"}, wantField: "read_scopes[0]"},
		{name: "comma would split an array literal", in: []string{"a,b"}, wantField: "read_scopes[0]"},
		{name: "brace", in: []string{"{a}"}, wantField: "read_scopes[0]"},
		{name: "too long", in: []string{strings.Repeat("x", MaxNameLen+1)}, wantField: "read_scopes[0]"},
		{name: "longest allowed", in: []string{strings.Repeat("x", MaxNameLen)}, want: []string{strings.Repeat("x", MaxNameLen)}},
		{name: "too many", in: many, wantField: "read_scopes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize("read_scopes", tt.in)
			if tt.wantField != "" {
				var se *Error
				if !errors.As(err, &se) || se.Field != tt.wantField {
					t.Fatalf("Normalize(%q) error %v, want *Error for field %s", tt.in, err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) || got == nil {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
