package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall/internal/command/hub"
	"github.com/recall-engine/recall/internal/command/progress"
)

// models: recall models pull NAME --dir DIR [--hub URL] [--revision REV] [--onnx-file PATH]
func (m *Main) models(ctx context.Context, args []string) error {
	fs := m.Flags("models pull")
	dir := fs.String("dir", "", "directory to write the model into (required)")
	base := fs.String("hub", "", "hub base URL (default $RECALL_HUB_URL, else "+hub.DefaultBaseURL+")")
	rev := fs.String("revision", "main", "branch, tag or commit")
	onnxFile := fs.String("onnx-file", "", "repository path of the ONNX graph (default onnx/model.onnx, else model.onnx)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall models pull NAME --dir DIR [flags]\n\n"+
			"Downloads a sentence-transformers ONNX export (model.onnx, tokenizer.json, configs),\n"+
			"verifying sizes and checksums; run it again to resume an interrupted download.\n"+
			"HF_TOKEN, when set, is sent as a bearer token.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || pos[0] != "pull" {
		fs.Usage()
		return fmt.Errorf("%w: want: models pull NAME --dir DIR", cli.ErrUsage)
	}
	if *dir == "" {
		return fmt.Errorf("%w: --dir is required", cli.ErrUsage)
	}
	if *base == "" {
		*base = m.Getenv("RECALL_HUB_URL")
	}
	name := pos[1]
	c := &hub.Client{BaseURL: *base, Token: m.Getenv("HF_TOKEN")}
	var mu sync.Mutex
	bars := map[string]*progress.Bar{}
	files, err := c.Pull(ctx, name, *dir, hub.Options{Revision: *rev, ONNXFile: *onnxFile, Progress: func(p hub.Progress) {
		mu.Lock()
		defer mu.Unlock()
		b, ok := bars[p.File]
		if !ok {
			label := p.File
			if p.Resumed > 0 {
				label += fmt.Sprintf(" (resuming at %d bytes)", p.Resumed)
			}
			b = progress.New(m.Stderr, label, p.Size, true)
			bars[p.File] = b
		}
		b.Set(p.Done)
		if p.Done == p.Size {
			b.Finish()
		}
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %d files in %s (%s)\n", name, len(files), *dir, strings.Join(files, ", "))
	return nil
}
