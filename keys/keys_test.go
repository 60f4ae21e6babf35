package keys_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/keys"
)

func TestKeys(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	text, k, err := keys.Create(ctx, db.Owner, keys.Spec{User: "ana", Label: "Ana", Read: []string{"team", "ops"}, Write: []string{"team"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "rk_"+k.ID+"_") || len(text) != 3+16+1+43 {
		t.Fatalf("key text %q (id %s)", text, k.ID)
	}
	got, err := keys.Lookup(ctx, db.Runtime, text)
	if err != nil {
		t.Fatal(err)
	}
	if got.User != "ana" || got.Label != "Ana" || strings.Join(got.Read, ",") != "ops,team" || strings.Join(got.Write, ",") != "team" {
		t.Fatalf("lookup: %+v", got)
	}
	// A wrong secret with the right id (a character of the middle changed), the same secret
	// with stray bits in its last character (43 base64 characters carry 258 bits for 256), a
	// malformed key, an unknown id: all the same error.
	flip := func(c byte) string { return map[bool]string{true: "B", false: "A"}[c == 'A'] }
	mid := len(text) - 20
	wrong := text[:mid] + flip(text[mid]) + text[mid+1:]
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	lastValue := strings.IndexByte(alphabet, text[len(text)-1])
	stray := text[:len(text)-1] + string(alphabet[lastValue^1]) // the lowest bit is unused
	for _, bad := range []string{wrong, stray, "", "rk_", text + "x", strings.ToUpper(text), "rk_0000000000000000_" + text[len(text)-43:]} {
		if _, err := keys.Lookup(ctx, db.Runtime, bad); !errors.Is(err, keys.ErrInvalid) {
			t.Fatalf("lookup %q: %v, want ErrInvalid", bad, err)
		}
	}
	// The runtime role cannot read the table, hashes included.
	if _, err := db.Runtime.Exec(ctx, `SELECT secret_hash FROM recall.api_keys`); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("runtime read recall.api_keys: %v", err)
	}
	list, err := keys.List(ctx, db.Owner)
	if err != nil || len(list) != 1 || list[0].ID != k.ID || list[0].Revoked != nil {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := keys.Revoke(ctx, db.Owner, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Lookup(ctx, db.Runtime, text); !errors.Is(err, keys.ErrInvalid) {
		t.Fatalf("revoked key: %v", err)
	}
	if err := keys.Revoke(ctx, db.Owner, "0000000000000000"); !errors.Is(err, keys.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	list, _ = keys.List(ctx, db.Owner)
	if len(list) != 1 || list[0].Revoked == nil {
		t.Fatalf("list after revoke: %+v", list)
	}
}

func TestCreateRefusesBadSpecs(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	for _, c := range []struct {
		spec  keys.Spec
		field string
	}{
		{keys.Spec{Read: []string{"a"}}, "user"},
		{keys.Spec{User: strings.Repeat("u", 257), Read: []string{"a"}}, "user"},
		{keys.Spec{User: "u"}, "read"},
		{keys.Spec{User: "u", Read: []string{"a b"}}, "read"},
		{keys.Spec{User: "u", Read: []string{"a"}, Write: []string{"b"}}, "write"},
		{keys.Spec{User: "u", Label: "\x00", Read: []string{"a"}}, "label"},
	} {
		_, _, err := keys.Create(context.Background(), db.Owner, c.spec)
		var ke *keys.Error
		if !errors.As(err, &ke) || ke.Field != c.field {
			t.Errorf("%+v: %v, want an error on %s", c.spec, err, c.field)
		}
	}
	var n int
	if err := db.Owner.QueryRow(context.Background(), `SELECT count(*) FROM recall.api_keys`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d keys stored after refusals (%v)", n, err)
	}
}
