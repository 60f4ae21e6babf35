package extract_test

import (
	"slices"
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
		{"Alice's cat met the Port of Lisbon pilots and NASA engineers.", []string{"Alice", "Port of Lisbon", "NASA"}},
		{"Ana de Sousa and Dan Wu met on Monday in Tokyo", []string{"Ana de Sousa", "Dan Wu", "Tokyo"}},
		{"nothing capitalised here", nil},
		{"Tokyo, Lisbon, Tokyo again and tokyo", []string{"Tokyo", "Lisbon"}},
		{"She said: Grace Hopper wrote COBOL.", []string{"Grace Hopper", "COBOL"}},
		{"I met Bob (Bob Stone) yesterday.", []string{"Bob", "Bob Stone"}},
		{"A", nil},
	} {
		if got := extract.Names(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}
