package shardkey

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseValue parses the text form of a value of type t: decimal integers,
// floats, text as is, bytes in hex (an optional 0x or \x prefix), UUIDs with
// or without dashes, timestamps in RFC 3339, "2006-01-02 15:04:05[.frac]" or
// "2006-01-02" (UTC); ObjectIds as 24 hex digits; dates as milliseconds
// since the epoch or a timestamp's forms; bools as true/false; extjson as
// MongoDB Extended JSON v2 (ParseExtJSON). An empty or blank string, NULL
// and \N (MySQL's export of NULL) are NULL for every type but Text.
func ParseValue(s string, t Type) (Value, error) {
	if t != Text && IsNullText(s) {
		return Value{}, nil
	}
	switch t {
	case Null:
		return Value{}, nil
	case Int16, Int32, Int64:
		bits := 64
		switch t {
		case Int16:
			bits = 16
		case Int32:
			bits = 32
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not an %s", s, t)
		}
		return Value{Type: t, Int: n}, nil
	case Uint64:
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a uint64", s)
		}
		return Value{Type: t, Int: int64(n)}, nil
	case Float32, Float64:
		bits := 64
		if t == Float32 {
			bits = 32
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), bits)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not a %s", s, t)
		}
		return Value{Type: t, Float: f}, nil
	case Text:
		return Value{Type: Text, Str: s}, nil
	case Bytes:
		h := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "0x"), `\x`)
		raw, err := hex.DecodeString(h)
		if err != nil {
			return Value{}, fmt.Errorf("%q is not hex bytes", s)
		}
		return Value{Type: Bytes, Str: string(raw)}, nil
	case UUID:
		raw, err := parseUUID(s)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: UUID, Str: raw}, nil
	case Timestamp:
		us, err := parseTimestamp(s)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: Timestamp, Int: us}, nil
	case ObjectID:
		raw, err := parseObjectID(s)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: ObjectID, Str: raw}, nil
	case Date:
		ms, err := parseDate(s)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: Date, Int: ms}, nil
	case Bool:
		b, err := parseBool(s)
		if err != nil {
			return Value{}, err
		}
		return Value{Type: Bool, Int: b}, nil
	case ExtJSON:
		return ParseExtJSON(s)
	}
	return Value{}, fmt.Errorf("cannot parse values of type %s", t)
}

func parseUUID(s string) (string, error) {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "{"), "}")
	h = strings.ReplaceAll(h, "-", "")
	if len(h) != 32 {
		return "", fmt.Errorf("%q is not a uuid", s)
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return "", fmt.Errorf("%q is not a uuid", s)
	}
	return string(raw), nil
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

var errNotTime = errors.New("not a timestamp")

func parseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("%q is %w (want RFC 3339 or 2006-01-02 15:04:05)", s, errNotTime)
}

func appendTimestamp(b []byte, us int64) []byte {
	return time.UnixMicro(us).UTC().AppendFormat(b, "2006-01-02T15:04:05.999999Z07:00")
}

// IsNullText reports whether s stands for NULL in a typed (not text)
// column: empty or blank, NULL in any case, or \N.
func IsNullText(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s == `\N` || strings.EqualFold(s, "NULL")
}

// InferType returns the narrowest type that every one of the sample strings
// parses as, in the order Int64, Uint64, Float64, UUID, Timestamp, Text.
// Empty strings are NULL and do not vote; surrounding spaces are ignored,
// as ParseValue ignores them for numbers. Integers are always Int64 (Uint64
// when some exceed int64 and none is negative), never narrower, so that the
// same number hashes the same in every table; integers a float64 cannot hold
// exactly (beyond 2^53) never make a column Float64 (distinct ids would
// merge): such a column is Text.
func InferType(samples []string) Type {
	t, _, _ := InferTypeOdd(samples)
	return t
}

// InferTypeOdd is InferType that also says when one value decided the type
// against nearly all the others: odd is the index of the first sample that
// keeps the column from the type want, which at least 90% of the non-NULL
// samples parse as (an integer column typed Float64 or Text by one stray
// value), else -1. Readers warn about it, since every value then hashes as
// the wider type. NULL, \N and blank samples are NULL and do not vote.
func InferTypeOdd(samples []string) (t Type, odd int, want Type) {
	// For each candidate type, from the narrowest: how many samples parse
	// as it, and the first that does not.
	cands := []struct {
		typ   Type
		parse func(string) bool
		count int
		first int
	}{
		{typ: Int64, parse: func(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }},
		{typ: Uint64, parse: func(s string) bool { _, err := strconv.ParseUint(s, 10, 64); return err == nil }},
		{typ: Float64, parse: func(s string) bool {
			f, err := strconv.ParseFloat(s, 64)
			// An integer a float64 cannot hold exactly is no float: ids
			// that differ would merge.
			return err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && !(isIntLiteral(s) && math.Abs(f) >= 1<<53)
		}},
		{typ: UUID, parse: func(s string) bool {
			if len(s) != 36 || s[8] != '-' {
				return false
			}
			_, err := parseUUID(s)
			return err == nil
		}},
		{typ: Timestamp, parse: func(s string) bool {
			if len(s) < 10 || s[4] != '-' {
				return false
			}
			_, err := parseTimestamp(s)
			return err == nil
		}},
	}
	for i := range cands {
		cands[i].first = -1
	}
	n := 0
	for i, s := range samples {
		if IsNullText(s) {
			continue
		}
		s = strings.TrimSpace(s)
		n++
		for k := range cands {
			c := &cands[k]
			if c.parse(s) {
				c.count++
			} else if c.first < 0 {
				c.first = i
			}
		}
	}
	if n == 0 {
		return Text, -1, Text
	}
	t = Text
	for _, c := range cands {
		if c.count == n {
			t = c.typ
			break
		}
	}
	// A type nearly every sample parses as, narrower than t: one stray
	// value decided the column's type. (Integers that fit int64 and
	// uint64 only apart, negative and huge, fit no single type: no
	// warning, text is the only choice.)
	for _, c := range cands {
		if c.typ == t {
			break
		}
		if c.count*10 >= n*9 && c.count < n && !(c.typ == Int64 && cands[1].count+c.count >= n && t == Text && allIntLiterals(samples)) {
			return t, c.first, c.typ
		}
	}
	return t, -1, t
}

// isIntLiteral reports whether s is a decimal integer: digits with an
// optional sign.
func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// allIntLiterals reports whether every non-NULL sample is a decimal
// integer.
func allIntLiterals(samples []string) bool {
	for _, s := range samples {
		if !IsNullText(s) && !isIntLiteral(strings.TrimSpace(s)) {
			return false
		}
	}
	return true
}
