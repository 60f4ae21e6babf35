// Package keys manages the API keys of recall's HTTP and MCP server. A key is a user: an id,
// read scopes and write scopes, fixed when the key is made. The key's text,
// "rk_<id>_<secret>", is shown once, when it is created; the database keeps the id and the
// SHA-256 of the secret (table recall.api_keys, which only the owner reads). The server, as
// the runtime role, looks a key up by id through recall.api_key and compares the hash in
// constant time; a revoked key is not found on the next lookup.
package keys

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// DB is what the functions here need of a pool or a connection.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Key is a stored key, without its secret.
type Key struct {
	ID      string     `json:"id"`
	User    string     `json:"user"`
	Label   string     `json:"label,omitempty"`
	Read    []string   `json:"read"`
	Write   []string   `json:"write"`
	Created time.Time  `json:"created"`
	Revoked *time.Time `json:"revoked,omitempty"`
	// Admin keys may erase any scope set (DELETE /v1/scopes/{scope}); List reports it,
	// Lookup does not read it (Admin asks).
	Admin bool `json:"admin,omitempty"`
}

// Spec is a key to create.
type Spec struct {
	User  string
	Label string
	Read  []string
	Write []string // each must also be a read scope
	Admin bool     // may erase any scope set over HTTP
}

// Limits.
const (
	MaxUserLen  = 256
	MaxLabelLen = 256
)

// An Error is a refused Spec: the field and the problem.
type Error struct {
	Field, Problem string
}

func (e *Error) Error() string { return "keys: " + e.Field + ": " + e.Problem }

// ErrInvalid is any key that does not authenticate: malformed, unknown, wrong secret or
// revoked. Which of these it was is not said (to the caller or in logs).
var ErrInvalid = errors.New("keys: invalid or revoked key")

// ErrNotFound: no key has that id.
var ErrNotFound = errors.New("keys: no such key")

const (
	prefix    = "rk_"
	idBytes   = 8
	secretLen = 32
)

func (s Spec) check() (read, write []string, err error) {
	if s.User == "" || len(s.User) > MaxUserLen || !utf8.ValidString(s.User) || strings.ContainsRune(s.User, 0) {
		return nil, nil, &Error{"user", fmt.Sprintf("want 1 to %d bytes of UTF-8 without NUL", MaxUserLen)}
	}
	if len(s.Label) > MaxLabelLen || !utf8.ValidString(s.Label) || strings.ContainsRune(s.Label, 0) {
		return nil, nil, &Error{"label", fmt.Sprintf("want at most %d bytes of UTF-8 without NUL", MaxLabelLen)}
	}
	read, err = scope.Normalize("read", s.Read)
	if err != nil {
		return nil, nil, &Error{"read", err.Error()}
	}
	if len(read) == 0 {
		return nil, nil, &Error{"read", "no read scopes: the key could see nothing"}
	}
	write, err = scope.Normalize("write", s.Write)
	if err != nil {
		return nil, nil, &Error{"write", err.Error()}
	}
	for _, w := range write {
		if !slices.Contains(read, w) {
			return nil, nil, &Error{"write", fmt.Sprintf("%q is not also a read scope", w)}
		}
	}
	return read, write, nil
}

// Create makes a key for spec, as the owner, and returns its text (shown once: it is not
// stored) and the stored key.
func Create(ctx context.Context, db DB, spec Spec) (string, Key, error) {
	read, write, err := spec.check()
	if err != nil {
		return "", Key{}, err
	}
	id := make([]byte, idBytes)
	secret := make([]byte, secretLen)
	if _, err := rand.Read(id); err != nil {
		return "", Key{}, err
	}
	if _, err := rand.Read(secret); err != nil {
		return "", Key{}, err
	}
	k := Key{ID: hex.EncodeToString(id), User: spec.User, Label: spec.Label, Read: read, Write: write, Admin: spec.Admin}
	text := prefix + k.ID + "_" + base64.RawURLEncoding.EncodeToString(secret)
	hash := sha256.Sum256(secret)
	err = db.QueryRow(ctx, sqltext.KeyCreate, pgx.StrictNamedArgs{
		"id": k.ID, "secret_hash": hash[:], "user_id": k.User, "label": k.Label, "read_scopes": read, "write_scopes": write, "admin": spec.Admin}).Scan(&k.Created)
	if err != nil {
		return "", Key{}, fmt.Errorf("keys: create: %w", err)
	}
	return text, k, nil
}

// List returns every key, newest first, revoked ones too.
func List(ctx context.Context, db DB) ([]Key, error) {
	rows, err := db.Query(ctx, sqltext.KeyList)
	if err != nil {
		return nil, fmt.Errorf("keys: list: %w", err)
	}
	out := []Key{}
	var k Key
	_, err = pgx.ForEachRow(rows, []any{&k.ID, &k.User, &k.Label, &k.Read, &k.Write, &k.Created, &k.Revoked, &k.Admin}, func() error {
		out = append(out, k)
		k = Key{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("keys: list: %w", err)
	}
	return out, nil
}

// Revoke revokes the key with id (the id part of its text, as List shows it). Revoking a
// revoked key changes nothing and is not an error.
func Revoke(ctx context.Context, db DB, id string) error {
	tag, err := db.Exec(ctx, sqltext.KeyRevoke, pgx.StrictNamedArgs{"id": id})
	if err != nil {
		return fmt.Errorf("keys: revoke: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// parse splits a key's text into its id and secret.
func parse(text string) (id string, secret []byte, ok bool) {
	rest, found := strings.CutPrefix(text, prefix)
	if !found {
		return "", nil, false
	}
	id, enc, found := strings.Cut(rest, "_")
	if !found || len(id) != 2*idBytes {
		return "", nil, false
	}
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", nil, false
	}
	secret, err := base64.RawURLEncoding.Strict().DecodeString(enc) // one text per key: stray bits in the last character are refused
	if err != nil || len(secret) != secretLen {
		return "", nil, false
	}
	return id, secret, true
}

// Lookup authenticates a key's text, as any role (the runtime role's recall.api_key), and
// returns the key: ErrInvalid when it does not authenticate.
func Lookup(ctx context.Context, db DB, text string) (Key, error) {
	id, secret, ok := parse(text)
	if !ok {
		return Key{}, ErrInvalid
	}
	hash := sha256.Sum256(secret)
	var stored []byte
	var found bool
	k := Key{ID: id}
	err := db.QueryRow(ctx, sqltext.KeyGet, pgx.StrictNamedArgs{"id": id}).
		Scan(&stored, &k.User, &k.Label, &k.Read, &k.Write, &found)
	if err != nil {
		return Key{}, fmt.Errorf("keys: lookup: %w", err)
	}
	// The comparison runs whether or not the id exists, over a hash of the same length.
	if subtle.ConstantTimeCompare(stored, hash[:])&subtle.ConstantTimeByteEq(boolByte(found), 1) != 1 {
		return Key{}, ErrInvalid
	}
	return k, nil
}

// Admin reports whether the key of id, authenticated by Lookup, is an admin key (false
// for a key revoked since).
func Admin(ctx context.Context, db DB, id string) (bool, error) {
	var admin bool
	if err := db.QueryRow(ctx, sqltext.KeyAdmin, pgx.StrictNamedArgs{"id": id}).Scan(&admin); err != nil {
		return false, fmt.Errorf("keys: admin: %w", err)
	}
	return admin, nil
}

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
