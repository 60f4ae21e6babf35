// Package sqltext holds recall's SQL text that is not a migration: the cluster roles, the
// fragments the recall statement is composed from (lanes/), the write path's and access
// recording's statements (write/, access/), the database functions with their triggers and
// probe indexes (the function files, applied by migrations.Up), and schema.sql, the current
// schema as a reader would look it up. Go code composes these; it holds no long SQL of its
// own. The package is named sqltext so that it never shadows database/sql.
package sqltext // import "github.com/recall-engine/recall/sql"

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

// Schema is the schema the migrations and function files build, as sql/schema.sql shows it
// (generated: make schema; a test keeps it true).
//
//go:embed schema.sql
var Schema string

// Write holds the write path's statements (write/*.sql): upserts of sources, memories,
// entities, mentions and relations, deletes, and entity resolution.
//
//go:embed write/*.sql
var Write embed.FS

// Lanes holds the recall statement's fragments (lanes/*.sql), read by the statement builder.
//
//go:embed lanes/*.sql
var Lanes embed.FS

//go:embed lanes/*.sql write/*.sql access/*.sql keys/*.sql functions.tmpl
var files embed.FS
