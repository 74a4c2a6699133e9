package sqllog

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Interval units in microseconds. A month is 30 days and a year 365.25
// days, as PostgreSQL turns an interval into seconds (DAYS_PER_MONTH and
// DAYS_PER_YEAR in src/include/datatype/timestamp.h, used by
// interval_part's EPOCH): the offset of now() - interval from now is read
// at that length, not by calendar (routing needs the range it falls in,
// not the exact instant).
const (
	usSecond = int64(1e6)
	usMinute = 60 * usSecond
	usHour   = 60 * usMinute
	usDay    = 24 * usHour
	usMonth  = 30 * usDay
	usYear   = usDay * 36525 / 100
)

// pgUnits are PostgreSQL's interval unit words (and abbreviations) in
// microseconds (DecodeUnits' deltatktbl in src/backend/utils/adt/datetime.c).
var pgUnits = map[string]int64{
	"microsecond": 1, "microseconds": 1, "us": 1, "usec": 1, "usecs": 1,
	"millisecond": 1000, "milliseconds": 1000, "ms": 1000, "msec": 1000, "msecs": 1000,
	"second": usSecond, "seconds": usSecond, "s": usSecond, "sec": usSecond, "secs": usSecond,
	"minute": usMinute, "minutes": usMinute, "m": usMinute, "min": usMinute, "mins": usMinute,
	"hour": usHour, "hours": usHour, "h": usHour, "hr": usHour, "hrs": usHour,
	"day": usDay, "days": usDay, "d": usDay,
	"week": 7 * usDay, "weeks": 7 * usDay, "w": 7 * usDay,
	"month": usMonth, "months": usMonth, "mon": usMonth, "mons": usMonth,
	"year": usYear, "years": usYear, "y": usYear, "yr": usYear, "yrs": usYear,
	"decade": 10 * usYear, "decades": 10 * usYear,
	"century": 100 * usYear, "centuries": 100 * usYear,
}

// pgInterval reads a PostgreSQL interval literal's text ('5 years',
// '1 day 2 hours', '-3 days', '01:30:00', '2 days ago') as microseconds;
// ok is false for any other form (ISO 8601 'P1D', a unit it does not
// know), which leaves the offset unknown.
func pgInterval(s string) (us int64, ok bool) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) == 0 {
		return 0, false
	}
	neg := false
	if f[len(f)-1] == "ago" {
		neg, f = true, f[:len(f)-1]
	}
	for i := 0; i < len(f); i++ {
		w := f[i]
		if strings.Contains(w, ":") { // [-]HH:MM[:SS[.frac]]
			v, ok := clockMicros(w)
			if !ok {
				return 0, false
			}
			us += v
			continue
		}
		// A number then a unit, or the two run together ('5days').
		j := 0
		for j < len(w) && (w[j] == '-' || w[j] == '+' || w[j] == '.' || w[j] >= '0' && w[j] <= '9') {
			j++
		}
		num, unit := w[:j], w[j:]
		if unit == "" {
			if i+1 >= len(f) {
				return 0, false
			}
			i++
			unit = f[i]
		}
		n, err := strconv.ParseFloat(num, 64)
		u, known := pgUnits[unit]
		if err != nil || !known {
			return 0, false
		}
		us += int64(n * float64(u))
	}
	if neg {
		us = -us
	}
	return us, true
}

// clockMicros reads [-]HH:MM[:SS[.frac]] as microseconds.
func clockMicros(w string) (int64, bool) {
	neg := strings.HasPrefix(w, "-")
	w = strings.TrimLeft(w, "+-")
	p := strings.Split(w, ":")
	if len(p) < 2 || len(p) > 3 {
		return 0, false
	}
	var us int64
	for i, unit := range []int64{usHour, usMinute, usSecond}[:len(p)] {
		n, err := strconv.ParseFloat(p[i], 64)
		if err != nil || n < 0 {
			return 0, false
		}
		us += int64(n * float64(unit))
	}
	if neg {
		us = -us
	}
	return us, true
}

// myUnits are MySQL's single interval units in microseconds (temporal
// interval units, MySQL reference manual, Date and Time Functions;
// QUARTER is 3 months).
var myUnits = map[sqlparser.IntervalType]int64{
	sqlparser.IntervalMicrosecond: 1,
	sqlparser.IntervalSecond:      usSecond,
	sqlparser.IntervalMinute:      usMinute,
	sqlparser.IntervalHour:        usHour,
	sqlparser.IntervalDay:         usDay,
	sqlparser.IntervalWeek:        7 * usDay,
	sqlparser.IntervalMonth:       usMonth,
	sqlparser.IntervalQuarter:     3 * usMonth,
	sqlparser.IntervalYear:        usYear,
}

// myInterval reads MySQL's INTERVAL n unit with n a number literal as
// microseconds; ok is false for a placeholder (INTERVAL ? DAY), an
// expression or a compound unit (DAY_HOUR).
func myInterval(e sqlparser.Expr, unit sqlparser.IntervalType) (int64, bool) {
	u, known := myUnits[unit]
	if !known {
		return 0, false
	}
	neg := false
	if x, ok := e.(*sqlparser.UnaryExpr); ok && x.Operator == sqlparser.UMinusOp {
		neg, e = true, x.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.IntVal && l.Type != sqlparser.DecimalVal && l.Type != sqlparser.StrVal {
		return 0, false
	}
	n, err := strconv.ParseFloat(l.Val, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return int64(n * float64(u)), true
}

// nowOffset reads the offset before now that arg.resolve wrote in a
// litNewest's text (see arg.us); ok is false when it is not known.
func nowOffset(l lit) (us int64, ok bool) {
	if l.kind != litNewest || l.s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(l.s, 10, 64)
	return v, err == nil
}
