// Package recall is a recall engine on Postgres: an agent asks a question with a token budget
// and gets one ranked list of evidence that fits it, computed by one SQL statement that runs
// every retrieval lane and the fusion inside Postgres, as the calling user, under row-level
// security.
//
// The package is the facade over its sub-packages, which never import it:
//
//	migrations/  the schema, row-level security and indexes, as goose migrations
//	statement/   the recall statement: lanes, fusion, the cache per shape, execution
//	sql/         the SQL text the statement is composed from, and the cluster roles
//
// The Engine, User, Pack, Recall and Trace of this package, and the rerank/, budget/,
// access/, eval/ and cmd/ packages, are the next pieces of work; see README.md for what
// works today.
package recall
