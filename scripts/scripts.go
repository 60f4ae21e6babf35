// Package scripts embeds the shell scripts the recall command runs for its embedded
// database: db.sh (a private PostgreSQL server) and pg-install.sh (PostgreSQL 15, pg_trgm and
// pgvector when missing). They are the same scripts make uses.
package scripts

import (
	"os"
	"path/filepath"

	"github.com/recall-engine/recall/sql"

	_ "embed"
)

//go:embed db.sh
var dbScript []byte

//go:embed pg-install.sh
var pgInstall []byte

// Unpack writes the scripts into dir laid out as in a checkout (scripts/db.sh,
// scripts/pg-install.sh, sql/roles.sql) and returns the path of db.sh.
func Unpack(dir string) (string, error) {
	files := map[string][]byte{
		"scripts/db.sh":         dbScript,
		"scripts/pg-install.sh": pgInstall,
		"sql/roles.sql":         []byte(sqltext.Roles),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, b, 0o755); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "scripts", "db.sh"), nil
}
