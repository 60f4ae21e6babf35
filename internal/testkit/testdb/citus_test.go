package testdb

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCitusDropsOrphans: a test database a worker still has after the coordinator's was
// dropped (what errHeldByCitus leaves) is dropped by the next Citus database's preparation;
// one the coordinator has too (a live or kept test database) stays.
func TestCitusDropsOrphans(t *testing.T) {
	if os.Getenv(EnvCitusURL) == "" {
		t.Skipf("%s is not set: no Citus cluster (make test starts one when ../shared/citus is there)", EnvCitusURL)
	}
	ctx := context.Background()
	w, err := pgx.ParseConfig(strings.Fields(os.Getenv(EnvCitusWorkers))[0])
	if err != nil {
		t.Fatal(err)
	}
	orphan := randomName("recall_citus_")
	if err := withAdmin(ctx, w, w.Database, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{orphan}.Sanitize())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dropDatabase(ctx, w, orphan) })
	db := Citus(t)
	names := map[string]bool{}
	if err := withAdmin(ctx, w, w.Database, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, "SELECT datname FROM pg_database")
		if err != nil {
			return err
		}
		list, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, n := range list {
			names[n] = true
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if names[orphan] || !names[db.Name] {
		t.Fatalf("after preparing %s: orphan %s there %v, the new database there %v", db.Name, orphan, names[orphan], names[db.Name])
	}
}
