package recall

import (
	"fmt"

	"github.com/recall-engine/recall/pack"
)

// The pack stage's types (package pack).
type (
	// Pack is the answer to one recall: the items that fit the budget, in merit order.
	Pack = pack.Pack
	// Item is one packed memory with its provenance.
	Item = pack.Item
	// Window is a time span the question names, as the temporal lane read it.
	Window = pack.Window
	// Omitted is a candidate left out of the pack.
	Omitted = pack.Omitted
	// Abstention signals tell the caller the pack may not answer the question.
	Abstention = pack.Abstention
	// Warning is a stage that was dropped or degraded in lenient mode.
	Warning = pack.Warning
	// Timings are the wall time of each stage of one recall.
	Timings = pack.Timings
	// Altitude says which layer of the memory a pack draws from.
	Altitude = pack.Altitude
	// Passages says how a pack gives a long memory the bm25 lane scored by a passage.
	Passages = pack.Passages
	// Climb is a summary packed in place of the memories it covers.
	Climb = pack.Climb
	// Decision is what became of a candidate.
	Decision = pack.Decision
)

// Altitudes (package pack). The zero value means AltitudeAuto.
const (
	AltitudeAuto      = pack.AltitudeAuto
	AltitudeMemories  = pack.AltitudeMemories
	AltitudeSummaries = pack.AltitudeSummaries
)

// Passage modes (package pack). The zero value means PassagesAuto.
const (
	PassagesAuto    = pack.PassagesAuto
	PassagesWhole   = pack.PassagesWhole
	PassagesPassage = pack.PassagesPassage
)

// Decisions a trace gives a candidate (package pack).
const (
	Packed          = pack.Packed
	PackedTruncated = pack.PackedTruncated
	OverBudget      = pack.OverBudget
	BeyondK         = pack.BeyondK
	AltitudeLeft    = pack.AltitudeLeft
	Descended       = pack.Descended
	Replaced        = pack.Replaced
)

// GraphContextShare is the part of the budget the graph context may take from the items
// when what is left after them does not hold it.
const GraphContextShare = pack.GraphContextShare

// ParseAltitude reads an altitude by name ("" is auto).
func ParseAltitude(s string) (Altitude, error) {
	switch a := Altitude(s); a {
	case "", AltitudeAuto:
		return AltitudeAuto, nil
	case AltitudeMemories, AltitudeSummaries:
		return a, nil
	}
	return "", &InputError{Field: "altitude", Problem: fmt.Sprintf("%q: want auto, memories or summaries", s)}
}

// ParsePassages reads a passage mode by name ("" is auto).
func ParsePassages(s string) (Passages, error) {
	switch p := Passages(s); p {
	case "", PassagesAuto:
		return PassagesAuto, nil
	case PassagesWhole, PassagesPassage:
		return p, nil
	}
	return "", &InputError{Field: "passages", Problem: fmt.Sprintf("%q: want auto, whole or passage", s)}
}
