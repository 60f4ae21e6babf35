// Package sql holds recall's SQL text that is not a migration: the cluster roles, the
// fragments the recall statement is composed from, and the access recording statement. Go
// code composes these fragments; it does not hold long SQL strings of its own. Import it under another name (recallsql).
package sql

import "embed"

// Roles creates the cluster roles recall_owner and recall_runtime when missing.
//
//go:embed roles.sql
var Roles string

// RecordAccess is the access package's one statement: stamp and count the packed memories.
//
//go:embed access/record.sql
var RecordAccess string

// RoleCheck tells whether the connected role escapes row security (the engine refuses it).
//
//go:embed engine/role.sql
var RoleCheck string

// Write holds the write path's statements (write/*.sql): upserts of sources, memories,
// entities, mentions and relations, deletes, and entity resolution.
//
//go:embed write/*.sql
var Write embed.FS

// Lanes holds the recall statement's fragments (lanes/*.sql), read by the statement builder.
//
//go:embed lanes/*.sql
var Lanes embed.FS
