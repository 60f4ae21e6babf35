package statement

import (
	"math"
	"sort"
	"time"
)

// Fuse orders candidates as the statement's fusion does, from their lane ranks: RRF, sum over
// the lanes in lane order of weight / (rrf_k + rank), plus the recency and frequency terms of
// their access at now; highest first, ties by id; the first K. It is the statement's fusion in
// Go, for fitting weights over candidates read once (a trace reads every lane's): on the same
// candidates it gives the statement's order, to the last bit of the RRF sum (the recency
// term's exp may round otherwise where access was recorded). It returns a new slice with RRF
// and Score set.
func Fuse(cands []Candidate, s Settings, now time.Time) []Candidate {
	out := make([]Candidate, len(cands))
	for i, c := range cands {
		var rrf float64
		for l := range Lane(NumLanes) {
			rrf += s.RRF(l, c.Lanes[l].Rank)
		}
		c.RRF, c.Score = rrf, rrf
		if c.LastAccessed != nil {
			age := now.Sub(*c.LastAccessed).Seconds()
			c.Score += s.WRecency * math.Exp(-math.Ln2*age/s.RecencyHalfLife.Seconds())
		}
		c.Score += s.WFrequency * math.Log(1+float64(c.AccessCount))
		out[i] = c
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(len(out), s.K)]
}

// RRF is what lane l's rank adds to a candidate's fused score: Weights[l] / (RRFK + rank),
// 0 when the lane did not find it (rank 0). The statement's fusion (sql/lanes/fusion.sql)
// computes the same term; every Go reader of it (Fuse, the Citus merge, the trace, the
// wire) calls this.
func (s Settings) RRF(l Lane, rank int) float64 {
	if rank <= 0 {
		return 0
	}
	return s.Weights[l] / (s.RRFK + float64(rank))
}
