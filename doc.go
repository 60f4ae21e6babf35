// Package recall is a recall engine on Postgres: an agent asks a question with a token budget
// and gets one ranked list of evidence that fits it, computed by one SQL statement that runs
// every retrieval lane and the fusion inside Postgres, as the calling user, under row-level
// security.
//
// An Engine (built by New from a Config) answers Recall(ctx, user, query, budget, opts):
//
//  1. the search text (with the speaker label, when the User has one);
//  2. the query embedding and its entity mentions, concurrently;
//  3. the cached statement for (dimension, plan), run as the user in one read-only
//     transaction (package statement);
//  4. merit order: the cross-encoder over the head, direct sources first (package rerank);
//  5. the budget walk (package budget);
//  6. access recording in a second, short transaction (package access).
//
// Trace runs the same path without step 6 and returns every lane's candidates, the fused
// order, rerank scores and pack decisions.
//
// The package is the facade over its sub-packages, which never import it:
//
//	migrations/  the schema, row-level security and indexes, as goose migrations
//	statement/   the recall statement: lanes, fusion, the cache per shape, execution
//	sql/         the SQL text the statement is composed from, and the cluster roles
//	embed/       embedders: built-in hashing, OpenAI-compatible HTTP, ONNX (embed/onnx)
//	rerank/      rerankers (TEI/Cohere HTTP, none, ONNX in rerank/onnx), merit order, MMR
//	budget/      token counting and the budget walk
//	access/      access recording
//	extract/     entity names in text, without a language model
//	eval/        retrieval metrics, the BEIR loader, the plan study and its report
//	cmd/         the recall and aizk-eval commands
//
// Engine.Write and Engine.Delete are the write path: transactional batches of sources,
// memories, entities and relations, with entity extraction and linking.
package recall
