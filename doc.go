// Package recall is a recall engine on Postgres: an agent asks a question with a token budget
// and gets one ranked list of evidence that fits it, computed by one SQL statement that runs
// every retrieval lane and the fusion inside Postgres, as the calling user, under row-level
// security.
//
// An Engine (built by New from a Config, or Open) answers Recall(ctx, user, query, budget,
// opts) in five stages: prepare (the search text, its embedding and entity mentions), retrieve
// (the cached statement for the dimension and plan, run as the user in one read-only
// transaction), order (the learned order and the reranker over the head), pack (the budget
// walk) and record (access, in a second short transaction). Trace runs the first four and
// keeps every lane's candidates; Write and Delete are the write path.
//
// The package is the facade over its sub-packages, which never import it. Which package owns
// what, the flow of a recall, a write and a request through them, and where each piece of SQL
// lives are in one map, docs/ARCHITECTURE.md; this comment keeps no list of its own.
package recall
