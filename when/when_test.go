package when_test

import (
	"testing"
	"time"

	"github.com/recall-engine/recall/when"
)

func TestParse(t *testing.T) {
	t.Parallel()
	// Wednesday 15 November 2023, 14:30 UTC.
	now := time.Date(2023, 11, 15, 14, 30, 0, 0, time.UTC)
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		q          string
		start, end time.Time
		text       string
	}{
		{"What natural disaster affected John's old area on 7 July, 2023?", d(2023, 7, 7), d(2023, 7, 8), "7 July, 2023"},
		{"What painting did Melanie show to Caroline on October 13, 2023?", d(2023, 10, 13), d(2023, 10, 14), "October 13, 2023"},
		{"What happened on 2023-02-01?", d(2023, 2, 1), d(2023, 2, 2), "2023-02-01"},
		{"the 3rd of March 2022", d(2022, 3, 3), d(2022, 3, 4), "3rd of March 2022"},
		{"What did Maria donate in December 2023?", d(2023, 12, 1), d(2024, 1, 1), "December 2023"},
		{"What happened in Sept. 2021?", d(2021, 9, 1), d(2021, 10, 1), "Sept. 2021"},
		{"When did Melanie go camping in June?", d(2023, 6, 1), d(2023, 7, 1), "in June"},
		{"What did we plan in December?", d(2022, 12, 1), d(2023, 1, 1), "in December"},
		{"What changed last May?", d(2023, 5, 1), d(2023, 6, 1), "last May"},
		{"How many times has Melanie gone to the beach in 2023?", d(2023, 1, 1), d(2024, 1, 1), "in 2023"},
		{"What did I do yesterday?", d(2023, 11, 14), d(2023, 11, 15), "yesterday"},
		{"anything today", d(2023, 11, 15), d(2023, 11, 16), "today"},
		{"What happened last week?", d(2023, 11, 6), d(2023, 11, 13), "last week"},
		{"and this week", d(2023, 11, 13), d(2023, 11, 20), "this week"},
		{"What event did John volunteer at last weekend?", d(2023, 11, 11), d(2023, 11, 13), "last weekend"},
		{"What did Gina buy last month?", d(2023, 10, 1), d(2023, 11, 1), "last month"},
		{"Where did John explore on a road trip last year?", d(2022, 1, 1), d(2023, 1, 1), "last year"},
		{"What did she start two months ago?", d(2023, 9, 1), d(2023, 10, 1), "two months ago"},
		{"Where did Caroline move from 4 years ago?", d(2019, 1, 1), d(2020, 1, 1), "4 years ago"},
		{"the bug from 3 days ago", d(2023, 11, 12), d(2023, 11, 13), "3 days ago"},
		{"a week ago", d(2023, 11, 6), d(2023, 11, 13), "a week ago"},
		{"I cooked something a couple of days ago", d(2023, 11, 13), d(2023, 11, 14), "a couple of days ago"},
		{"a couple weeks ago", d(2023, 10, 30), d(2023, 11, 6), "a couple weeks ago"},
		// Spans that end with the question's day: not calendar units.
		{"How many events did I attend in the past month?", d(2023, 10, 16), d(2023, 11, 16), "past month"},
		{"and in the past week", d(2023, 11, 9), d(2023, 11, 16), "past week"},
		{"over the last three weeks", d(2023, 10, 26), d(2023, 11, 16), "last three weeks"},
		{"in the past 2 years", d(2021, 11, 16), d(2023, 11, 16), "past 2 years"},
		{"the last couple of months", d(2023, 9, 16), d(2023, 11, 16), "last couple of months"},
		// The first expression wins, and at one place the most specific.
		{"in May, then on 2 June 2023", d(2023, 5, 1), d(2023, 6, 1), "in May"},
		// No 31 June: the month is what is left.
		{"On 31 June, 2023 it rained in July 2023", d(2023, 6, 1), d(2023, 7, 1), "June, 2023"},
	} {
		w, ok := when.Parse(c.q, now)
		if !ok || !w.Start.Equal(c.start) || !w.End.Equal(c.end) || w.Text != c.text {
			t.Errorf("%q: %v [%v, %v) %q, want [%v, %v) %q", c.q, ok, w.Start, w.End, w.Text, c.start, c.end, c.text)
		}
	}
	for _, q := range []string{"What is Caroline's favourite book?", "How may I help?", "I have 2023 apples", "the 18th birthday"} {
		if w, ok := when.Parse(q, now); ok {
			t.Errorf("%q: found %q [%v, %v)", q, w.Text, w.Start, w.End)
		}
	}
	// On a Saturday, last weekend is the one before.
	sat := time.Date(2023, 11, 18, 10, 0, 0, 0, time.UTC)
	if w, _ := when.Parse("last weekend", sat); !w.Start.Equal(d(2023, 11, 11)) {
		t.Errorf("last weekend on a Saturday: %v", w.Start)
	}
}
