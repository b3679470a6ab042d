package metadata

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Date is a date known to the year, the month or the day.
type Date struct {
	// Raw is the value as written; "" when none was given.
	Raw string
	// Year, Month and Day are its parts; 0 when unknown (Year 0: Raw is
	// not a date this package reads).
	Year, Month, Day int
}

// ParseDate reads the when syntax: a year ("1903"), an ISO 8601 date
// ("1903-05", "1903-05-17", "19030517") or date-time (its date is taken),
// or an ERC date range or list ("1901-1905", "1901, 1905"), whose first
// date counts. Anything else keeps Raw with no parts.
func ParseDate(v string) Date {
	d := Date{Raw: clean(v)}
	s := d.Raw
	if i := strings.IndexAny(s, ",;"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) == 9 && s[4] == '-' && allDigits(s[:4]) && allDigits(s[5:]) {
		s = s[:4] // an ERC range of years
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		d.Year, d.Month, d.Day = t.Year(), int(t.Month()), t.Day()
		return d
	}
	if i := strings.IndexByte(s, 'T'); i > 0 {
		s = s[:i]
	}
	for _, layout := range []struct {
		form  string
		parts int
	}{{"2006-01-02", 3}, {"20060102", 3}, {"2006-01", 2}, {"2006", 1}} {
		if len(s) != len(layout.form) {
			continue
		}
		t, err := time.Parse(layout.form, s)
		if err != nil {
			continue
		}
		d.Year = t.Year()
		if layout.parts > 1 {
			d.Month = int(t.Month())
		}
		if layout.parts > 2 {
			d.Day = t.Day()
		}
		return d
	}
	return d
}

// Known reports whether the date has at least a year.
func (d Date) Known() bool { return d.Year != 0 }

// YearString is the year as four digits, or "".
func (d Date) YearString() string {
	if d.Year == 0 {
		return ""
	}
	return fmt.Sprintf("%04d", d.Year)
}

// ISO is the date in ISO 8601 to its precision ("1903", "1903-05",
// "1903-05-17"), or "".
func (d Date) ISO() string {
	switch {
	case d.Year == 0:
		return ""
	case d.Month == 0:
		return d.YearString()
	case d.Day == 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// Parts are the known parts in order: year, then month, then day.
func (d Date) Parts() []int {
	switch {
	case d.Year == 0:
		return nil
	case d.Month == 0:
		return []int{d.Year}
	case d.Day == 0:
		return []int{d.Year, d.Month}
	}
	return []int{d.Year, d.Month, d.Day}
}

// allDigits reports whether s is non-empty and all ASCII digits.
func allDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil && !strings.HasPrefix(s, "+")
}
