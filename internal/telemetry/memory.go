package telemetry

import "go.opentelemetry.io/otel/attribute"

// The generative-AI semantic conventions' names for memory operations (OpenTelemetry's
// semantic-conventions-genai, "Memory" spans, status Development): the operation a recall
// span (search_memory), a write span (upsert_memory: a batch creates or updates memories by
// id without the caller choosing which), a delete or prune span (delete_memory) and a
// supersede span (update_memory) perform, and how many memory records it returned or
// attempted. recall's spans carry them beside their own names and attributes. The
// conventions' opt-in attributes that hold user text (gen_ai.memory.query.text,
// gen_ai.memory.records) are never set, and gen_ai.memory.store.id is not either: the store
// is the caller's scope sets, whose names are user data.
const (
	OpSearchMemory = "search_memory"
	OpUpsertMemory = "upsert_memory"
	OpUpdateMemory = "update_memory"
	OpDeleteMemory = "delete_memory"
)

// MemoryOp is the gen_ai.operation.name attribute of a memory operation.
func MemoryOp(op string) attribute.KeyValue { return attribute.String("gen_ai.operation.name", op) }

// MemoryRecords is the gen_ai.memory.record.count attribute: the records a search returned,
// or a write, update or delete attempted.
func MemoryRecords(n int) attribute.KeyValue { return attribute.Int("gen_ai.memory.record.count", n) }
