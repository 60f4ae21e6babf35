package extract_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/extract"
)

func TestNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Alice Martin moved to Lisbon in March 2021.", []string{"Alice Martin", "Lisbon"}},
		{"The harbor project finished late. When Bob arrived, Carol left.", []string{"Bob", "Carol"}},
		// After a colon a sentence may start: a single capitalised word there is as unsure a
		// name as at any sentence's start (Find gives it as weak).
		{"June Park's class met in June. Storm warning: Nadia stayed.", []string{"June Park"}},
		{"She moved from New York City to New Zealand. New pupils came.", []string{"New York City", "New Zealand"}},
		{"Tip for Lisbon: Use the tram. Step 2: Keep \"Nadia Costa\" on the list.**", []string{"Lisbon", "Nadia Costa"}},
		{"Alice's cat met the Port of Lisbon pilots and NASA engineers.", []string{"Port of Lisbon", "NASA"}},
		{"I saw Alice's cat.", []string{"Alice"}},
		{"Ana de Sousa and Dan Wu met on Monday in Tokyo", []string{"Ana de Sousa", "Dan Wu", "Tokyo"}},
		{"nothing capitalised here", nil},
		{"Tokyo, Lisbon, Tokyo again and tokyo", []string{"Lisbon", "Tokyo"}},
		{"She said: Grace Hopper wrote COBOL.", []string{"Grace Hopper", "COBOL"}},
		{"Alice left. Lisbon was quiet; then Alice came back.", []string{"Alice"}},
		{"I met Bob (Bob Stone) yesterday.", []string{"Bob", "Bob Stone"}},
		{"A", nil},
		{"BACKGROUND Aspirin lowers risk in HIV patients. METHODS Furthermore, the DNA in Rhesus Macaques was read. MAIN OUTCOME MEASURES Mortality at Johns Hopkins.",
			[]string{"HIV", "DNA", "Rhesus Macaques", "Johns Hopkins"}},
		{"The Results Desk of the Background Institute", []string{"Results Desk", "Background Institute"}},
		// Runs too long to be names are left out, whatever else the text holds.
		{strings.Repeat("Harbor ", 80) + "met Alice Martin.", []string{"Alice Martin"}},
		{"WE ARE CLOSED ALL WEEK FOR THE HARBOR WORKS AND THE PIER REPAIRS. Then Alice left.", []string{"Alice"}},
		{"She met Able Baker Charlie Dog Easy Fox George Harry in Lisbon.", []string{"Able Baker Charlie Dog Easy Fox George Harry", "Lisbon"}},
		{"She met Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota in Lisbon.", []string{"Lisbon"}},
		{"Dr " + strings.Repeat("Wolfeschlegelsteinhausenbergerdorff", 4) + " called.", nil},
		// Contractions of function words are not names, wherever they stand.
		{"So I'm sure Alice knew, and I've said it. Then I'd go, but You'll see why Don't and Can't matter to O'Brien.", []string{"Alice", "O'Brien"}},
		// A line starts a sentence (a list item, the line after a heading) and ends a name.
		{"Packing tips for Lisbon:\n- Use a tripod.\n* Keep the lens dry\nAdditional Tips\nBring Sony batteries", []string{"Lisbon", "Additional Tips", "Bring Sony"}},
	} {
		if got := extract.Names(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestFindWeak(t *testing.T) {
	t.Parallel()
	strong, weak := extract.Find("Storm warning: Nadia kept boats in port. Tokyo was humid. Water rose near Gull Island. Nadia left. Dan met Nadia.")
	if !slices.Equal(strong, []string{"Gull Island", "Nadia"}) || !slices.Equal(weak, []string{"Storm", "Tokyo", "Water", "Dan"}) {
		t.Fatalf("strong %q weak %q", strong, weak)
	}
}
