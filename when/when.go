// Package when finds the time a question asks about: dates ("7 July, 2023", "May 23, 2023",
// "2023-07-07"), months ("December 2023", "in May"), years ("in 2022"), and expressions
// relative to when it is asked ("yesterday", "last week", "last weekend", "last month",
// "last year", "two months ago", "3 days ago", "a couple of days ago"), and spans that end
// when it is asked ("in the past month", "over the last three weeks"). It returns the window [Start, End) of the
// first expression it reads, in now's location; it needs no model and no network.
package when

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Window is a time span a question names, and the words that named it.
type Window struct {
	Start, End time.Time
	Text       string
}

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

var numbers = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": 3, "few": 3, "several": 3,
	"a couple of": 2, "a couple": 2, "couple of": 2,
}

const count = `(\d{1,3}|a couple of|a couple|couple of|a few|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)`

const month = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

// anyDigit in a rule's need stands for any of the digits 0-9.
const anyDigit = "0-9"

// monthHeads are the first three letters of every month's names, which month matches.
var monthHeads = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// The expressions, most specific first; each regexp is matched against the lowered question,
// and only when the question holds one of its need (words every match of it holds), so
// that the text of a write, most of which names no time, costs a few substring tests
// instead of a backtracking match of every rule (TestParseNeeds holds them to the
// regexps).
var rules = []struct {
	need  []string
	re    *regexp.Regexp
	parse func(m []string, now time.Time) (time.Time, time.Time, bool)
}{
	{[]string{anyDigit}, regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return day(atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3]), now)
	}},
	{[]string{anyDigit}, regexp.MustCompile(`\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?` + month + `,? (\d{4})\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return day(atoi(m[3]), months[m[2]], atoi(m[1]), now)
	}},
	{[]string{anyDigit}, regexp.MustCompile(`\b` + month + ` (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return day(atoi(m[3]), months[m[1]], atoi(m[2]), now)
	}},
	{[]string{anyDigit}, regexp.MustCompile(`\b` + month + `,? (\d{4})\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return monthOf(atoi(m[2]), months[m[1]], now)
	}},
	{[]string{"yesterday"}, regexp.MustCompile(`\byesterday\b`), func(_ []string, now time.Time) (time.Time, time.Time, bool) {
		d := midnight(now).AddDate(0, 0, -1)
		return d, d.AddDate(0, 0, 1), true
	}},
	{[]string{"today"}, regexp.MustCompile(`\btoday\b`), func(_ []string, now time.Time) (time.Time, time.Time, bool) {
		d := midnight(now)
		return d, d.AddDate(0, 0, 1), true
	}},
	{[]string{"weekend"}, regexp.MustCompile(`\b(last|this|past) weekend\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		// The Saturday and Sunday before now (this weekend: the coming or current one).
		d := midnight(now)
		back := (int(d.Weekday()) + 1) % 7 // days since the last Saturday
		sat := d.AddDate(0, 0, -back)
		if m[1] == "last" || m[1] == "past" {
			if back < 2 { // on the weekend itself, "last weekend" is the one before
				sat = sat.AddDate(0, 0, -7)
			}
		}
		return sat, sat.AddDate(0, 0, 2), true
	}},
	// "the past month" and "the last three weeks" end now: the span up to the question, not
	// the calendar month or weeks before the current one ("last month", "last week").
	{[]string{"day", "week", "month", "year"}, regexp.MustCompile(`\b(past|last) ` + count + ` (day|week|month|year)s\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return upTo(m[3], amount(m[2]), now)
	}},
	{[]string{"past"}, regexp.MustCompile(`\bpast (week|month|year)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return upTo(m[1], 1, now)
	}},
	{[]string{"week", "month", "year"}, regexp.MustCompile(`\b(last|this|next) (week|month|year)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		step := map[string]int{"last": -1, "this": 0, "next": 1}[m[1]]
		return unit(m[2], step, now)
	}},
	{[]string{"ago"}, regexp.MustCompile(`\b` + count + ` (day|week|month|year)s? ago\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		return unit(m[2], -amount(m[1]), now)
	}},
	{[]string{"last"}, regexp.MustCompile(`\blast ` + month + `\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		// The most recent such month before the current one.
		y := now.Year()
		if months[m[1]] >= now.Month() {
			y--
		}
		return monthOf(y, months[m[1]], now)
	}},
	{monthHeads, regexp.MustCompile(`\b(?:in|during|since|by|early|late|mid|of) ` + month + `\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		// A month without a year: its most recent occurrence up to now.
		y := now.Year()
		if months[m[1]] > now.Month() {
			y--
		}
		return monthOf(y, months[m[1]], now)
	}},
	{[]string{anyDigit}, regexp.MustCompile(`\b(?:in|during|since|of|year) (1[89]\d\d|2[01]\d\d)\b`), func(m []string, now time.Time) (time.Time, time.Time, bool) {
		y := time.Date(atoi(m[1]), 1, 1, 0, 0, 0, 0, now.Location())
		return y, y.AddDate(1, 0, 0), true
	}},
}

// Parse returns the window of the first time expression of question, relative to now, and
// whether it found one. Of expressions that start at the same place the most specific wins
// ("7 July, 2023" over "July, 2023").
func Parse(question string, now time.Time) (Window, bool) {
	return parse(question, now, true)
}

// parse is Parse, each rule tried only when the question holds one of its need if needed.
func parse(question string, now time.Time, needed bool) (Window, bool) {
	q := strings.ToLower(question)
	digits := strings.ContainsAny(q, "0123456789")
	best := Window{}
	at := -1
	for _, r := range rules {
		if needed && !holdsOne(q, digits, r.need) {
			continue
		}
		loc := r.re.FindStringSubmatchIndex(q)
		if loc == nil {
			continue
		}
		// An expression is placed by its first group: "in June" at June, so that "in June
		// 2023" is read as "June 2023".
		pos := loc[0]
		if len(loc) > 2 && loc[2] >= 0 {
			pos = loc[2]
		}
		if at >= 0 && pos >= at {
			continue
		}
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = q[loc[2*i]:loc[2*i+1]]
			}
		}
		start, end, ok := r.parse(m, now)
		if !ok {
			continue
		}
		best, at = Window{Start: start, End: end, Text: question[loc[0]:loc[1]]}, pos
	}
	return best, at >= 0
}

// holdsOne reports whether q holds one of need (anyDigit: when digits).
func holdsOne(q string, digits bool, need []string) bool {
	for _, w := range need {
		if w == anyDigit && digits || w != anyDigit && strings.Contains(q, w) {
			return true
		}
	}
	return false
}

// amount is a count's number: a word of numbers, or digits.
func amount(s string) int {
	if n, ok := numbers[s]; ok {
		return n
	}
	return atoi(s)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

func day(y int, m time.Month, d int, now time.Time) (time.Time, time.Time, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	if m < 1 || m > 12 || d < 1 || t.Day() != d { // 31 June is no day
		return t, t, false
	}
	return t, t.AddDate(0, 0, 1), true
}

func monthOf(y int, m time.Month, now time.Time) (time.Time, time.Time, bool) {
	if m < 1 || m > 12 {
		return time.Time{}, time.Time{}, false
	}
	t := time.Date(y, m, 1, 0, 0, 0, 0, now.Location())
	return t, t.AddDate(0, 1, 0), true
}

// upTo is the span of n units that ends with now's day: [that day - n units + 1 day, the
// day after it).
func upTo(u string, n int, now time.Time) (time.Time, time.Time, bool) {
	end := midnight(now).AddDate(0, 0, 1)
	switch u {
	case "day":
		return end.AddDate(0, 0, -n), end, true
	case "week":
		return end.AddDate(0, 0, -7*n), end, true
	case "month":
		return end.AddDate(0, -n, 0), end, true
	case "year":
		return end.AddDate(-n, 0, 0), end, true
	}
	return end, end, false
}

// unit is the calendar week (from Monday), month or year step units from now's.
func unit(u string, step int, now time.Time) (time.Time, time.Time, bool) {
	d := midnight(now)
	switch u {
	case "day":
		s := d.AddDate(0, 0, step)
		return s, s.AddDate(0, 0, 1), true
	case "week":
		monday := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		s := monday.AddDate(0, 0, 7*step)
		return s, s.AddDate(0, 0, 7), true
	case "month":
		s := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location()).AddDate(0, step, 0)
		return s, s.AddDate(0, 1, 0), true
	case "year":
		s := time.Date(d.Year()+step, 1, 1, 0, 0, 0, 0, d.Location())
		return s, s.AddDate(1, 0, 0), true
	}
	return d, d, false
}
