package migrations_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/sql"
)

// TestSchemaFile: sql/schema.sql is what the migrations and function files build. Run with
// RECALL_UPDATE_SCHEMA=1 (make schema) to write it anew after a schema change.
func TestSchemaFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, name := testdb.NewEmpty(t)
	db := testdb.OpenSQL(admin, testdb.OwnerRole, name)
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	got, err := migrations.Describe(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("RECALL_UPDATE_SCHEMA") != "" {
		if err := os.WriteFile("../sql/schema.sql", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != sqltext.Schema {
		gl, wl := strings.Split(got, "\n"), strings.Split(sqltext.Schema, "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("sql/schema.sql differs from the migrated schema at line %d:\n  file:     %s\n  database: %s\n(make schema writes it anew)", i+1, w, g)
			}
		}
	}
	for _, want := range []string{"CREATE TABLE recall.memories", "CREATE POLICY memories_read", "sources_trgm_scopes_111_up_idx", "body: sql/lanes/title_probe.sql"} {
		if !strings.Contains(got, want) {
			t.Errorf("the schema lacks %q", want)
		}
	}
}

// TestFunctionFiles: every function a file defines is in the database with the file's body;
// a body changed by hand is reported and put back by Up, and nothing else is applied again.
func TestFunctionFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, name := testdb.NewEmpty(t)
	db := testdb.OpenSQL(admin, testdb.OwnerRole, name)
	t.Cleanup(func() { db.Close() })
	res, err := migrations.Up(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Functions) != len(sqltext.FunctionFiles) {
		t.Fatalf("the first Up applied %d function files, want %d", len(res.Functions), len(sqltext.FunctionFiles))
	}
	if drift, err := migrations.CheckFunctions(ctx, db); err != nil || len(drift) != 0 {
		t.Fatalf("after Up: drift %v, %v", drift, err)
	}
	bodies, err := sqltext.FunctionBodies()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, b := range bodies {
		names[b.Name]++
		var src string
		if err := db.QueryRowContext(ctx, `SELECT prosrc FROM pg_proc WHERE oid = $1::regproc`, b.Name).Scan(&src); err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		if src != b.Body {
			t.Fatalf("%s: the database's body differs from sql/%s", b.Name, b.File)
		}
	}
	for n, k := range names {
		if k != 1 {
			t.Errorf("%s is defined %d times in the function files", n, k)
		}
	}
	if len(names) < 10 {
		t.Fatalf("found %d functions in the function files, want at least 10", len(names))
	}

	// A hand-made change to one function: reported, and only its file is applied again.
	if _, err := db.ExecContext(ctx, `CREATE OR REPLACE FUNCTION recall.sources_title_changed() RETURNS trigger
		LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`); err != nil {
		t.Fatal(err)
	}
	drift, err := migrations.CheckFunctions(ctx, db)
	if err != nil || len(drift) != 1 || drift[0].File != "write/lexemes.sql" {
		t.Fatalf("after a hand-made change: drift %+v, %v; want write/lexemes.sql alone", drift, err)
	}
	res, err = migrations.Up(ctx, db)
	if err != nil || len(res.Migrations) != 0 || len(res.Functions) != 1 || res.Functions[0] != "write/lexemes.sql" {
		t.Fatalf("Up after the change: %+v, %v", res, err)
	}
	if drift, err := migrations.CheckFunctions(ctx, db); err != nil || len(drift) != 0 {
		t.Fatalf("after the second Up: drift %v, %v", drift, err)
	}
	if res, err := migrations.Up(ctx, db); err != nil || len(res.Functions) != 0 {
		t.Fatalf("a third Up applied %v (%v), want nothing", res.Functions, err)
	}
}

// TestNewerDatabase: a database migrated further than this build's migrations (a newer
// recall, or a development build from before the baseline) is refused, not half-migrated.
func TestNewerDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, name := testdb.NewEmpty(t)
	db := testdb.OpenSQL(admin, testdb.OwnerRole, name)
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO `+migrations.VersionTable+` (version_id, is_applied) VALUES (20, true)`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Up(ctx, db); !errors.Is(err, migrations.ErrNewerDatabase) {
		t.Fatalf("Up on a database at version 20: %v, want ErrNewerDatabase", err)
	}
}
