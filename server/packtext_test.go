package server_test

import (
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/server"
)

// TestPackTextAttachments: the MCP text says which way an attached item serves its anchor:
// the answer after a question, the turn before a short reply; and names the anchor by its
// number and id.
func TestPackTextAttachments(t *testing.T) {
	t.Parallel()
	p := &recall.Pack{Budget: 100, Items: []recall.Item{
		{ID: 1, ExternalID: "q7", Text: "Ana: Did the crane break?", Run: 1},
		{ID: 2, ExternalID: "a8", Text: "Bo: Yes, last week.", Run: 1, Context: "answer", AttachedTo: 1},
		{ID: 3, ExternalID: "t3", Text: "Ana: Who fixed the crane?", Run: 2, Context: "reply_to", AttachedTo: 4},
		{ID: 4, ExternalID: "t4", Text: "Bo: Tomasz.", Run: 2},
	}}
	text := server.PackText(p)
	for _, want := range []string{
		"[2] id a8 · the answer to item 1 (q7), the question just before it",
		"[3] id t3 · what item 4 (t4), the short reply just after it, answers",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the pack text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "item before") {
		t.Errorf("the pack text still says the item before:\n%s", text)
	}
}
