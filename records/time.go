package records

import (
	"fmt"
	"strings"
	"time"
)

// TimeLayouts are the layouts ParseTime tries after the caller's: RFC 3339, date and time,
// plain dates (UTC), and the conversational forms "1:56 pm on 8 May, 2023" (LoCoMo's) and
// "8 May 2023".
var TimeLayouts = []string{
	time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly,
	"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "2 January 2006", "2 January, 2006", "January 2, 2006",
}

// ParseTime reads s with layouts, then TimeLayouts; times without a zone are UTC.
func ParseTime(s string, layouts ...string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range append(layouts, TimeLayouts...) {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339, YYYY-MM-DD[ HH:MM[:SS]], or a layout given", s)
}
