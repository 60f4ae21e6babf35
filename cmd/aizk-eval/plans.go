package main

import "context"

// plans: aizk-eval plans --dataset DIR [bench flags] — bench over every arm of the plan study:
// maximal, each lane alone, maximal minus each lane.
func (m *Main) plans(ctx context.Context, args []string) error {
	return m.bench(ctx, append([]string{"--plans", "study"}, args...))
}
