package server

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/wiretest"
)

// TestWriteBodySetsEveryField: POST /v1/memories' body, decoded as the handler decodes it,
// is the engine's Batch with every field of every write type that has a wire name (the
// Go-only ones are wiretest.GoOnly's), so nothing is settable from Go alone.
func TestWriteBodySetsEveryField(t *testing.T) {
	t.Parallel()
	want := wiretest.Full[recall.Batch]()
	body, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got WriteRequest
	r := httptest.NewRequest("POST", "/v1/memories", bytes.NewReader(body))
	if p := decode(httptest.NewRecorder(), r, 1<<20, &got); p != nil {
		t.Fatalf("decode: %+v", p)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nfrom %s\nwant %+v", got, body, want)
	}
	for _, field := range []string{"prune", "defer_vector_index", "Prune"} {
		r := httptest.NewRequest("POST", "/v1/memories", bytes.NewReader([]byte(`{"`+field+`": true}`)))
		if p := decode(httptest.NewRecorder(), r, 1<<20, new(WriteRequest)); p == nil {
			t.Errorf("a body setting %q was accepted: it is Go's alone", field)
		}
	}
}
