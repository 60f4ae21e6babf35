package statement

import (
	"fmt"
	"strings"
)

// Lane is one retrieval lane of the recall statement.
type Lane uint8

// The lanes, in the order their columns appear in the statement's output. Each has an entry
// in the registry below.
const (
	Vector   Lane = iota // pgvector HNSW, cosine distance
	BM25                 // Okapi BM25 with the caller's statistics
	Mention              // memories mentioning entities the query names
	Graph                // personalized PageRank over the entity graph
	Temporal             // closeness to the query's time window
	Title                // source titles the query names (direct sources)
	Context              // BM25 of a memory with its neighbours' words; an answer after its question
	NumLanes = 7
)

// An input is a WITH query several lanes read; it is compiled in when a lane of the plan
// needs it.
type input uint8

const (
	inVector   input = iota // vector_hits: vector_hits.sql (an empty stub without a query vector)
	inLexical               // bm25_idf, bm25_candidates, bm25_parts: lexical.sql
	inEntities              // mention_entities: mention_fuzzy.sql or mention_exact.sql
	numInputs
)

// laneDef is what the builder, the settings and the trace know of a lane.
type laneDef struct {
	name string
	// weight is the lane's default RRF weight (Settings.Weights).
	weight float64
	// depth names the setting that bounds how many rows the lane returns.
	depth string
	// inputs are the shared WITH queries the lane's fragment reads.
	inputs []input
	// direct: the lane's rows carry a direct column (the query names their source).
	direct bool
	// passage: the lane's rows carry a passage column, the passage of a long memory that
	// scored (memories.passages, from 1), which the output gives as the matched passage.
	// At most one lane has it.
	passage bool
	// parts are the fragments that define the lane, in order, when it is not one file of its
	// name (the graph lane is four, which a cross-worker recall runs apart: spread.go).
	parts []string
	// merge is how a cross-worker recall ranks the lane over the rows every worker returned
	// for it (of its name's kind), as its fragment ranks them on one server
	// (statement/spread_merge.go); every lane has one.
	merge mergeRule
}

// fragments are the names of the sql/lanes/ files that define lane l.
func (l Lane) fragments() []string {
	if p := lanes[l].parts; p != nil {
		return p
	}
	return []string{lanes[l].name}
}

// lanes is the registry: sql/lanes/<name>.sql defines <name>_lane (id, rank, score), reading
// visible_sets and visible_stats, its inputs and its settings' binds. The default weights
// (with rrf_k 2) were fitted by aizk-eval tune on the development data, SciFact's train split
// and LoCoMo's three development conversations, built-in embedder: eval/results/README.md.
// A lane of weight 0 is not run (Settings.Lanes): the graph lane's fitted 0.05 moved no
// measure on any development set while it cost a quarter of a recall, so it is 0 by
// default (eval/results/graph-off.md); a settings file or --set weights.graph=0.05 runs it.
var lanes = [NumLanes]laneDef{
	Vector:  {name: "vector", weight: 0.05, depth: "vector_k", inputs: []input{inVector}, merge: mergeNearest},
	BM25:    {name: "bm25", weight: 0.7, depth: "bm25_k", inputs: []input{inLexical}, passage: true, merge: mergeTop},
	Mention: {name: "mention", weight: 0.1, depth: "mention_k", inputs: []input{inEntities}, merge: mergeMidRanked},
	Graph: {name: "graph", weight: 0, depth: "graph_k", inputs: []input{inVector, inLexical, inEntities},
		parts: []string{"graph_seed", "graph_walk", "graph_rank", "graph_score"}, merge: mergeGraphRound},
	Temporal: {name: "temporal", weight: 0.25, depth: "temporal_k", merge: mergeTemporalRule},
	Title:    {name: "title", weight: 0.15, depth: "title_k", direct: true, merge: mergeMidRanked},
	Context:  {name: "context", weight: 1, depth: "context_k", inputs: []input{inLexical}, merge: mergeContextRule},
}

func init() {
	passages := 0
	for l, d := range lanes {
		if d.name == "" || d.depth == "" {
			panic(fmt.Sprintf("statement: lane %d has no registry entry", l))
		}
		if d.merge == noMerge {
			panic(fmt.Sprintf("statement: lane %s has no merge rule: a cross-worker recall could not rank it", d.name))
		}
		if d.passage {
			passages++
		}
	}
	if passages > 1 {
		panic("statement: more than one lane gives the matched passage")
	}
}

func (l Lane) String() string {
	if int(l) < NumLanes {
		return lanes[l].name
	}
	return fmt.Sprintf("lane(%d)", uint8(l))
}

// MarshalText writes the lane's name (JSON keys and settings files use it).
func (l Lane) MarshalText() ([]byte, error) {
	if int(l) >= NumLanes {
		return nil, fmt.Errorf("statement: no lane %d", l)
	}
	return []byte(lanes[l].name), nil
}

// UnmarshalText reads a lane's name.
func (l *Lane) UnmarshalText(b []byte) error {
	v, err := ParseLane(string(b))
	*l = v
	return err
}

// ParseLane returns the lane named s.
func ParseLane(s string) (Lane, error) {
	names := make([]string, NumLanes)
	for i, d := range lanes {
		if d.name == s {
			return Lane(i), nil
		}
		names[i] = d.name
	}
	return 0, fmt.Errorf("statement: unknown lane %q (lanes: %s)", s, strings.Join(names, ", "))
}

// Lanes lists every lane in output order.
func Lanes() []Lane { return Maximal.Lanes() }
