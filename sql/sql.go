// Package sql holds recall's SQL text that is not a migration: the cluster roles and the
// fragments the recall statement is composed from. Go code composes these fragments; it does
// not hold long SQL strings of its own. Import it under another name (recallsql).
package sql

import "embed"

// Roles creates the cluster roles recall_owner and recall_runtime when missing.
//
//go:embed roles.sql
var Roles string

// Lanes holds the recall statement's fragments (lanes/*.sql), read by the statement builder.
//
//go:embed lanes/*.sql
var Lanes embed.FS
