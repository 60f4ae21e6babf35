package progress_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/command/progress"
)

func TestPlainLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	b := progress.New(&buf, "ingest", 200, false)
	b.Set(50) // the first Set draws; the next ones wait for the interval
	b.Set(100)
	b.Finish()
	b.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ingest 50/200 (25%)") || !strings.HasPrefix(lines[1], "ingest 100/200 (50%)") {
		t.Fatalf("%q", buf.String())
	}
	if strings.Contains(buf.String(), "\r") {
		t.Fatal("carriage return outside a terminal")
	}
	var bb bytes.Buffer
	s := progress.New(&bb, "model.onnx", 3<<20, true)
	s.Set(3 << 19)
	if !strings.HasPrefix(bb.String(), "model.onnx 1.5 MiB/3.0 MiB (50%)") {
		t.Fatalf("%q", bb.String())
	}
}
