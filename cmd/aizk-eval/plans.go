package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-engine/recall/internal/cli"
	"github.com/recall-engine/recall/statement"
)

// plans: aizk-eval plans --dataset DIR — bench over every arm of the plan study.
func (m *Main) plans(ctx context.Context, args []string) error {
	fs := m.Flags("plans")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	jsonOut := fs.String("json", "", "write the results as JSON to FILE")
	report := fs.String("report", "", "write a markdown report (and its SVG plot) to FILE.md")
	limit := fs.Int("limit", 0, "run only the first N judged queries (0: all)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval plans --dataset DIR [flags]\n\n"+
			"The ablation table: maximal, each lane alone, maximal minus each lane.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || d.dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: --dataset is required", cli.ErrUsage)
	}
	return m.study(ctx, d, statement.StudyPlans(), *limit, *jsonOut, *report, "aizk-eval plans "+strings.Join(args, " "))
}
