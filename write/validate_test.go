package write

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestValidate runs validate's table: a valid batch passes, and each change of one field
// (one row) is refused with an *Error naming that row and field, the first fault found.
func TestValidate(t *testing.T) {
	t.Parallel()
	at := func(y int) *time.Time { v := time.Date(y, 5, 1, 0, 0, 0, 0, time.UTC); return &v }
	valid := func() Batch {
		return Batch{
			Sources:   []Source{{ID: "chat", Title: "Chat"}},
			Memories:  []Memory{{ID: "m1", Text: "Ana fixed the crane.", Source: "chat", Position: 1}, {ID: "m2", Text: "It rained."}},
			Entities:  []Entity{{ID: "ana", Name: "Ana"}, {ID: "crane", Name: "crane"}},
			Relations: []Relation{{From: "ana", To: "crane", Predicate: "fixed", Memory: "m1"}},
		}
	}
	if err := validate(valid(), 4); err != nil {
		t.Fatalf("a valid batch: %v", err)
	}
	long := strings.Repeat("x", MaxIDLen+1)
	for name, c := range map[string]struct {
		change      func(b *Batch)
		item, field string
	}{
		"duplicates policy": {func(b *Batch) { b.Duplicates = "merge" }, "batch", "duplicates"},
		"duplicate match":   {func(b *Batch) { b.DuplicateMatch = "stems" }, "batch", "duplicate_match"},
		"prune too short":   {func(b *Batch) { b.Prune = "m" }, "batch", "prune"},
		"prune not a prefix": {func(b *Batch) {
			b.Prune = "chat:"
			b.Memories[0].ID = "chat:1"
		}, "memories[1]", "id"},
		"source id empty":       {func(b *Batch) { b.Sources[0].ID = "" }, "sources[0]", "id"},
		"source title long":     {func(b *Batch) { b.Sources[0].Title = strings.Repeat("t", MaxTitleLen+1) }, "sources[0]", "title"},
		"source time":           {func(b *Batch) { b.Sources[0].OccurredAt = at(10000) }, "sources[0]", "occurred_at"},
		"source twice":          {func(b *Batch) { b.Sources = append(b.Sources, Source{ID: "chat"}) }, "sources[1]", "id"},
		"memory id long":        {func(b *Batch) { b.Memories[1].ID = long }, "memories[1]", "id"},
		"memory id NUL":         {func(b *Batch) { b.Memories[1].ID = "a\x00b" }, "memories[1]", "id"},
		"memory text blank":     {func(b *Batch) { b.Memories[1].Text = " \n" }, "memories[1]", "text"},
		"memory kind":           {func(b *Batch) { b.Memories[1].Kind = "dream" }, "memories[1]", "kind"},
		"memory embedding size": {func(b *Batch) { b.Memories[1].Embedding = []float32{1, 0} }, "memories[1]", "embedding"},
		"memory embedding NaN": {func(b *Batch) {
			b.Memories[1].Embedding = []float32{1, 0, float32(math.NaN()), 0}
		}, "memories[1]", "embedding"},
		"memory embedding zero": {func(b *Batch) { b.Memories[1].Embedding = make([]float32, 4) }, "memories[1]", "embedding"},
		"memory occurred end":   {func(b *Batch) { b.Memories[1].OccurredStart, b.Memories[1].OccurredEnd = at(2024), at(2023) }, "memories[1]", "occurred_end"},
		"memory refers half":    {func(b *Batch) { b.Memories[1].RefersStart = at(2024) }, "memories[1]", "refers_end"},
		"memory validity":       {func(b *Batch) { b.Memories[1].ValidFrom, b.Memories[1].ValidUntil = at(2024), at(2024) }, "memories[1]", "valid_until"},
		"memory expiry year":    {func(b *Batch) { b.Memories[1].ExpiresAt = at(0) }, "memories[1]", "expires_at"},
		"memory position":       {func(b *Batch) { b.Memories[1].Position = -1 }, "memories[1]", "position"},
		"memory place, no source": {func(b *Batch) {
			b.Memories[1].Position = 2
		}, "memories[1]", "position"},
		"memory speaker long": {func(b *Batch) { b.Memories[1].Speaker = strings.Repeat("s", MaxSpeakerLen+1) }, "memories[1]", "speaker"},
		"memory tag blank":    {func(b *Batch) { b.Memories[1].Tags = []string{"ok", ""} }, "memories[1]", "tags[1]"},
		"memory entity empty": {func(b *Batch) { b.Memories[1].Entities = []string{""} }, "memories[1]", "entities[0]"},
		"memory covers, no summary": {func(b *Batch) {
			b.Memories[1].Covers = []string{"m1"}
		}, "memories[1]", "covers"},
		"summary covers itself": {func(b *Batch) {
			b.Memories[1].Kind, b.Memories[1].Covers = "summary", []string{"m1", "m2"}
		}, "memories[1]", "covers[1]"},
		"summary covers twice": {func(b *Batch) {
			b.Memories[1].Kind, b.Memories[1].Covers = "summary", []string{"m1", "m1"}
		}, "memories[1]", "covers[1]"},
		"supersedes itself":   {func(b *Batch) { b.Memories[1].Supersedes = []string{"m2"} }, "memories[1]", "supersedes[0]"},
		"supersedes_at alone": {func(b *Batch) { b.Memories[1].SupersedesAt = &time.Time{} }, "memories[1]", "supersedes_at"},
		"duplicate of itself": {func(b *Batch) { b.Memories[1].DuplicateOf = "m2" }, "memories[1]", "duplicate_of"},
		"duplicate_of NUL":    {func(b *Batch) { b.Memories[1].DuplicateOf = "m\x001" }, "memories[1]", "duplicate_of"},
		"metadata NaN":        {func(b *Batch) { b.Memories[1].Metadata = map[string]any{"x": []any{1, math.Inf(1)}} }, "memories[1]", "metadata.x[1]"},
		"metadata bad UTF-8":  {func(b *Batch) { b.Memories[1].Metadata = map[string]any{"k": "\xff"} }, "memories[1]", "metadata.k"},
		"memory twice":        {func(b *Batch) { b.Memories[1].ID = "m1" }, "memories[1]", "id"},
		"entity auto id":      {func(b *Batch) { b.Entities[1].ID = "auto:crane" }, "entities[1]", "id"},
		"entity name blank":   {func(b *Batch) { b.Entities[1].Name = "" }, "entities[1]", "name"},
		"entity alias blank":  {func(b *Batch) { b.Entities[1].Aliases = []string{"lift", " "} }, "entities[1]", "aliases[1]"},
		"entity kind long":    {func(b *Batch) { b.Entities[1].Kind = strings.Repeat("k", MaxKindLen+1) }, "entities[1]", "kind"},
		"entity twice":        {func(b *Batch) { b.Entities[1].ID = "ana" }, "entities[1]", "id"},
		"relation to itself":  {func(b *Batch) { b.Relations[0].To = "ana" }, "relations[0]", "to"},
		"relation weight":     {func(b *Batch) { b.Relations[0].Weight = -1 }, "relations[0]", "weight"},
		"relation weight NaN": {func(b *Batch) { b.Relations[0].Weight = math.NaN() }, "relations[0]", "weight"},
		"relation from empty": {func(b *Batch) { b.Relations[0].From = "" }, "relations[0]", "from"},
		"relation twice, default predicate": {func(b *Batch) {
			b.Relations[0].Predicate = ""
			b.Relations = append(b.Relations, Relation{From: "ana", To: "crane", Predicate: DefaultPredicate, Memory: "m1"})
		}, "relations[1]", "predicate"},
	} {
		b := valid()
		c.change(&b)
		err := validate(b, 4)
		var we *Error
		if !errors.As(err, &we) || we.Item != c.item || we.Field != c.field {
			t.Errorf("%s: %v, want an *Error naming %s.%s", name, err, c.item, c.field)
		}
	}
	// A restored export keeps the engine's "auto:" ids.
	b := valid()
	b.Entities[1].ID, b.AsExported = "auto:crane", true
	if err := validate(b, 4); err != nil {
		t.Errorf("an exported auto: id refused: %v", err)
	}
}

// TestScopes: a batch names its scope set within the caller's write scopes, or takes the
// caller's only one; the set is normalized, and one whose names pass MaxScopeSetBytes is
// refused.
func TestScopes(t *testing.T) {
	t.Parallel()
	got, err := Scopes([]string{"team"}, nil)
	if err != nil || len(got) != 1 || got[0] != "team" {
		t.Fatalf("the only write scope: %v, %v", got, err)
	}
	got, err = Scopes([]string{"a", "b"}, []string{"b", "a", "b"})
	if err != nil || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("normalized: %v, %v", got, err)
	}
	big := make([]string, 0, 40)
	for i := range 40 {
		big = append(big, strings.Repeat(string(rune('a'+i%26)), 12)+string(rune('A'+i/26)))
	}
	for name, c := range map[string]struct{ write, batch []string }{
		"two write scopes, none named": {[]string{"a", "b"}, nil},
		"not a write scope":            {[]string{"a"}, []string{"b"}},
		"set too long":                 {big, big},
	} {
		var we *Error
		if _, err := Scopes(c.write, c.batch); !errors.As(err, &we) || we.Item != "batch" || we.Field != "scopes" {
			t.Errorf("%s: %v, want an *Error naming batch.scopes", name, err)
		}
	}
}
