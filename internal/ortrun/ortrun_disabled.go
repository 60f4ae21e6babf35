//go:build !ort

// Package ortrun runs ONNX models with ONNX Runtime; this binary was built without it (build
// with -tags ort, and see scripts/ort-install.sh).
package ortrun

import (
	"errors"

	"github.com/recall-engine/recall/internal/hf"
)

// Built reports whether this binary has the ONNX Runtime backend.
const Built = false

// ErrNotBuilt is returned by Open in binaries built without the tag ort.
var ErrNotBuilt = errors.New("ortrun: built without ONNX Runtime: rebuild with -tags ort")

// Session is a model loaded in ONNX Runtime.
type Session struct {
	Output  string
	OutDims []int64
}

// Open fails: no ONNX Runtime in this binary.
func Open(*hf.Dir, string) (*Session, error) { return nil, ErrNotBuilt }

// Run is never reached.
func (s *Session) Run(*hf.Batch) ([]float32, []int64, error) { return nil, nil, ErrNotBuilt }

// Close does nothing.
func (s *Session) Close() error { return nil }
