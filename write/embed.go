package write

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/recall-engine/recall/embed"
)

// embedMemories returns each memory's embedding: given (normalized), or from the embedder,
// in chunks of 256 texts embedded concurrently (embedders are safe for concurrent use; the
// built-in one is CPU-bound, HTTP ones wait on the network).
func embedMemories(ctx context.Context, e embed.Embedder, ms []Memory) ([][]float32, error) {
	out := make([][]float32, len(ms))
	var idx []int
	var texts []string
	for i, m := range ms {
		if m.Embedding != nil {
			out[i] = embed.Normalize(slices.Clone(m.Embedding))
			continue
		}
		idx = append(idx, i)
		texts = append(texts, m.Text)
	}
	const batch = 256
	var chunks [][2]int
	for lo := 0; lo < len(texts); lo += batch {
		chunks = append(chunks, [2]int{lo, min(len(texts), lo+batch)})
	}
	errs := make([]error, len(chunks))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for k, c := range chunks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			vs, err := e.Embed(ctx, texts[c[0]:c[1]], embed.Document)
			if err != nil {
				var ie *embed.InputError
				if errors.As(err, &ie) {
					errs[k] = &Error{Item: fmt.Sprintf("memories[%d]", idx[c[0]+ie.Index]), Field: "text", Problem: ie.Problem.Error()}
				} else {
					errs[k] = fmt.Errorf("recall: write: embedding memories: %w", err)
				}
				return
			}
			for j, v := range vs {
				out[idx[c[0]+j]] = v
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
