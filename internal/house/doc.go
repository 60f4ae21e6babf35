// Package house holds the repository's house rules as tests (house_test.go): no non-test Go
// file over 400 lines and no function over 100, no SQL text in Go outside package sqltext
// (sql/), no executable build output tracked, and every repository path and relative link
// in README.md and docs/*.md existing. It has no code of its own.
package house
