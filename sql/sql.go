// Package sqltext holds recall's SQL text that is not a migration: the cluster roles, the
// fragments the recall statement is composed from (lanes/), the write path's and access
// recording's statements (write/, access/), the database functions with their triggers and
// probe indexes (the function files, applied by migrations.Up), and schema.sql, the current
// schema as a reader would look it up. Go code composes these; it holds no long SQL of its
// own. The package is named sqltext so that it never shadows database/sql.
package sqltext // import "github.com/recall-engine/recall/sql"

import (
	"embed"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Roles creates the cluster roles recall_owner and recall_runtime when missing.
//
//go:embed roles.sql
var Roles string

// RecordAccess is the access package's one statement: stamp and count the packed memories.
//
//go:embed access/record.sql
var RecordAccess string

// RecordSets lists the scope sets of the memories to stamp (on Citus, one statement per set).
//
//go:embed access/record_sets.sql
var RecordSets string

// RoleCheck tells whether the connected role escapes row security (the engine refuses it).
//
//go:embed engine/role.sql
var RoleCheck string

// SummarizeInput is what summaries are grouped from, for one scope set, read as the caller
// (package summarize).
//
//go:embed read/summarize_input.sql
var SummarizeInput string

// SourcePlaces is the greatest place stored in each of a scope set's named sources, as the
// caller (a resumed ingest).
//
//go:embed read/source_places.sql
var SourcePlaces string

// EntityNames is the names of the entities memories mention, as the caller, on one server
// (statement.EntityNames).
//
//go:embed read/entity_names.sql
var EntityNames string

// MemoryIDs lists a scope set's memories' external ids, as the caller.
//
//go:embed read/memory_ids.sql
var MemoryIDs string

// ExportSources, ExportEntities, ExportMemories and ExportRelations are what Engine.Export
// reads of a scope set, as the caller, in one snapshot.
var (
	//go:embed read/export_sources.sql
	ExportSources string
	//go:embed read/export_entities.sql
	ExportEntities string
	//go:embed read/export_memories.sql
	ExportMemories string
	//go:embed read/export_relations.sql
	ExportRelations string
)

// Browse, BrowseSources, MemoryDetail, MemoryNeighbours and MemoryEntities are what
// Engine.Browse and Engine.Memory read, as the caller (the console's browse view).
var (
	//go:embed read/browse.sql
	Browse string
	//go:embed read/browse_sources.sql
	BrowseSources string
	//go:embed read/memory_detail.sql
	MemoryDetail string
	//go:embed read/memory_neighbours.sql
	MemoryNeighbours string
	//go:embed read/memory_entities.sql
	MemoryEntities string
)

// VisibleSets lists the scope sets the caller sees (on Citus, where the statement is routed
// to one of them: package statement).
//
//go:embed read/visible_sets.sql
var VisibleSets string

// VisibleSetsAll lists every scope set the caller sees (statement.RouteReadSets reads each on
// a Citus cluster).
//
//go:embed read/visible_sets_all.sql
var VisibleSetsAll string

// ShardPlacement reads where a scope set's shards are on a Citus cluster (statement.PlacementOf).
//
//go:embed read/shard_placement.sql
var ShardPlacement string

// ShardHere asks a worker whether a scope set's memories shard is placed there
// (statement.RunOnShard).
//
//go:embed read/shard_here.sql
var ShardHere string

// WALPosition is the primary's current WAL position in bytes.
//
//go:embed read/wal_position.sql
var WALPosition string

// ReplayPosition is how far a standby has replayed, in bytes (0 on a primary).
//
//go:embed read/replay_position.sql
var ReplayPosition string

// The API keys' statements (package keys): create, list and revoke as the owner, get by id
// as any role through recall.api_key.
var (
	//go:embed keys/create.sql
	KeyCreate string
	//go:embed keys/list.sql
	KeyList string
	//go:embed keys/revoke.sql
	KeyRevoke string
	//go:embed keys/get.sql
	KeyGet string
	//go:embed keys/admin.sql
	KeyAdmin string
)

// StoredFunctions lists recall's functions in the database with their bodies: name
// ("recall.probe_titles") and pg_proc.prosrc, which every role may read.
//
//go:embed engine/stored_functions.sql
var StoredFunctions string

// ScopeApply sets a transaction's caller: scopes and session settings (internal/scope).
//
//go:embed engine/scope_apply.sql
var ScopeApply string

// VectorInstalled asks whether the database has pgvector's type (recall.PoolConfig, when
// registering it failed).
//
//go:embed engine/vector_installed.sql
var VectorInstalled string

// IsCitus asks whether the server runs Citus (once per connection, internal/scope).
//
//go:embed engine/is_citus.sql
var IsCitus string

// IsDistributed asks, on Citus, whether recall's tables are distributed (internal/scope).
//
//go:embed engine/is_distributed.sql
var IsDistributed string

// ScopeApplyCitus sets it on a Citus coordinator, where the workers must see it too.
//
//go:embed engine/scope_apply_citus.sql
var ScopeApplyCitus string

// Statements of the commands' and migrations' housekeeping (admin/): the function files'
// bookkeeping, the commands' databases and extensions, aizk-eval's ingest lock.
var (
	//go:embed admin/functions_lock.sql
	FunctionsLock string
	//go:embed admin/functions_applied.sql
	FunctionsApplied string
	//go:embed admin/functions_record.sql
	FunctionsRecord string
	//go:embed admin/database_exists.sql
	DatabaseExists string
	//go:embed admin/create_database.sql
	CreateDatabase string
	//go:embed admin/database_owner.sql
	DatabaseOwner string
	//go:embed admin/extensions.sql
	Extensions string
	//go:embed admin/analyze.sql
	Analyze string
	//go:embed admin/eval_lock.sql
	EvalLock string
	//go:embed admin/eval_unlock.sql
	EvalUnlock string
)

// The catalog reads that describe the schema for sql/schema.sql (migrations.Describe).
var (
	//go:embed admin/describe/functions.sql
	DescribeFunctions string
	//go:embed admin/describe/types.sql
	DescribeTypes string
	//go:embed admin/describe/tables.sql
	DescribeTables string
	//go:embed admin/describe/columns.sql
	DescribeColumns string
	//go:embed admin/describe/constraints.sql
	DescribeConstraints string
	//go:embed admin/describe/indexes.sql
	DescribeIndexes string
	//go:embed admin/describe/triggers.sql
	DescribeTriggers string
	//go:embed admin/describe/policies.sql
	DescribePolicies string
)

// Reads of the commands, as the owner (read/): whether scopes hold memories, which scopes do,
// memories' texts by id, whether an evaluation database's ingest completed; and, as the
// caller, aizk-eval's exact vector search baseline.
var (
	//go:embed read/scope_has_memories.sql
	ScopeHasMemories string
	//go:embed read/scopes_with_memories.sql
	ScopesWithMemories string
	//go:embed read/memory_texts.sql
	MemoryTexts string
	//go:embed read/eval_complete.sql
	EvalComplete string
	//go:embed read/eval_exact_vector.sql
	EvalExactVector string
)

// Identifiers replaces each {{name}} marker of text with the quoted identifier ids[name]
// (DDL that names a database or a role cannot take a bind).
func Identifiers(text string, ids map[string]string) string {
	for name, id := range ids {
		text = strings.ReplaceAll(text, "{{"+name+"}}", pgx.Identifier{id}.Sanitize())
	}
	return text
}

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

//go:embed lanes/*.sql write/*.sql access/*.sql keys/*.sql engine/*.sql functions.tmpl
var files embed.FS

// CitusDistribute distributes the schema on a Citus coordinator (migrations.Distribute).
//
//go:embed citus/distribute.sql
var CitusDistribute string

// CitusTriggerPlans has the write triggers plan their statements at each call on a
// distributed schema (the file says why); a no-op elsewhere.
//
//go:embed citus/trigger_plans.sql
var CitusTriggerPlans string

// PassagesSplit splits the memories written before passages existed (migrations.Up).
//
//go:embed admin/passages_split.sql
var PassagesSplit string

// BM25Flush rebuilds a transaction's changed memories' lexical data on Citus (scope.Flush).
//
//go:embed engine/bm25_flush.sql
var BM25Flush string

// ConsolidateGroups is what recall consolidate asks a model about: each entity's memories
// of a scope set, oldest first, read as the caller.
//
//go:embed read/consolidate_groups.sql
var ConsolidateGroups string

// ShardRead, ShardProbe and TitleKnown are the pieces statement.ShardSQLSets and
// RunOnShards write the shard form of several scope sets on one worker from (their comments
// say how).
var (
	//go:embed citus/shard_read.sql
	ShardRead string
	//go:embed citus/shard_probe.sql
	ShardProbe string
	//go:embed citus/title_known.sql
	TitleKnown string
)

// Reads, Routed and Shard are the read forms of the statement's fragments (lanes/reads.sql
// lists the markers they write out): one server's, the routed form Citus sends to one scope
// set's shard (statement/routed.go) and the form read on that shard's worker
// (statement/shard.go); Go text/templates executed by block name.
var (
	//go:embed lanes/reads.sql
	Reads string
	//go:embed citus/routed.sql
	Routed string
	//go:embed citus/shard.sql
	Shard string
)

// Spread holds the pieces of a recall across workers (statement/spread.go), a Go
// text/template executed by block name.
//
//go:embed citus/spread.sql
var Spread string
