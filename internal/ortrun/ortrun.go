//go:build ort

// Package ortrun runs ONNX models with ONNX Runtime through github.com/yalue/onnxruntime_go.
// It is compiled only with the build tag ort and needs libonnxruntime.so at run time
// (scripts/ort-install.sh extracts it from the npm package onnxruntime-node).
package ortrun

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/recall-engine/recall/internal/hf"
)

// Built reports whether this binary has the ONNX Runtime backend.
const Built = true

var (
	initOnce sync.Once
	initErr  error
)

// Init loads the shared library once per process: lib, else $ONNXRUNTIME_LIB.
func Init(lib string) error {
	initOnce.Do(func() {
		if lib == "" {
			lib = os.Getenv("ONNXRUNTIME_LIB")
		}
		if lib == "" {
			initErr = fmt.Errorf("ortrun: no ONNX Runtime library: set ONNXRUNTIME_LIB (scripts/ort-install.sh fetches one)")
			return
		}
		if _, err := os.Stat(lib); err != nil {
			initErr = fmt.Errorf("ortrun: ONNX Runtime library: %w", err)
			return
		}
		ort.SetSharedLibraryPath(lib)
		initErr = ort.InitializeEnvironment()
	})
	return initErr
}

// Session is one model loaded in ONNX Runtime.
type Session struct {
	s       *ort.DynamicAdvancedSession
	inputs  []string
	Output  string
	OutDims []int64 // declared output shape, -1 for dynamic axes
}

// Open loads model.onnx of dir with every core for intra-op parallelism.
func Open(dir *hf.Dir, lib string) (*Session, error) {
	if err := Init(lib); err != nil {
		return nil, err
	}
	path := dir.Path + "/model.onnx"
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, &hf.ModelError{Dir: dir.Path, File: "model.onnx", Problem: err.Error()}
	}
	if len(outs) == 0 {
		return nil, &hf.ModelError{Dir: dir.Path, File: "model.onnx", Problem: "no output"}
	}
	var names []string
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			names = append(names, in.Name)
		default:
			return nil, &hf.ModelError{Dir: dir.Path, File: "model.onnx", Problem: "unknown input " + in.Name}
		}
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy() //nolint:errcheck // options are copied into the session
	if err := opts.SetIntraOpNumThreads(runtime.NumCPU()); err != nil {
		return nil, err
	}
	s, err := ort.NewDynamicAdvancedSession(path, names, []string{outs[0].Name}, opts)
	if err != nil {
		return nil, &hf.ModelError{Dir: dir.Path, File: "model.onnx", Problem: err.Error()}
	}
	return &Session{s: s, inputs: names, Output: outs[0].Name, OutDims: outs[0].Dimensions}, nil
}

// Run runs the batch and returns the first output's data and shape.
func (s *Session) Run(b *hf.Batch) ([]float32, []int64, error) {
	shape := ort.NewShape(int64(b.N), int64(b.Seq))
	in := make([]ort.Value, len(s.inputs))
	defer func() {
		for _, v := range in {
			if v != nil {
				_ = v.Destroy()
			}
		}
	}()
	for i, name := range s.inputs {
		data := b.IDs
		switch name {
		case "attention_mask":
			data = b.Mask
		case "token_type_ids":
			data = b.Types
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, nil, err
		}
		in[i] = t
	}
	out := []ort.Value{nil}
	if err := s.s.Run(in, out); err != nil {
		return nil, nil, fmt.Errorf("ortrun: %w", err)
	}
	defer out[0].Destroy() //nolint:errcheck // data is copied out first
	t, ok := out[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("ortrun: output %s is not a float32 tensor", s.Output)
	}
	data := append([]float32(nil), t.GetData()...)
	return data, t.GetShape(), nil
}

// Close releases the session.
func (s *Session) Close() error { return s.s.Destroy() }
