package server

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite openapi.json")

// TestOpenAPIFile: openapi.json is what the routes and the body types make.
func TestOpenAPIFile(t *testing.T) {
	want, err := openAPI()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(OpenAPI) != string(want) {
		t.Fatal("openapi.json is stale: go test ./server -run OpenAPI -update")
	}
}
