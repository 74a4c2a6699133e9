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
// "2006-01-02" (UTC). An empty or blank string, NULL and \N (MySQL's
// export of NULL) are NULL for every type but Text.
func ParseValue(s string, t Type) (Value, error) {
	if t != Text && isNullText(s) {
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

// isNullText reports whether s stands for NULL in a typed (not text)
// column: empty or blank, NULL in any case, or \N.
func isNullText(s string) bool {
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
	isInt, isUint, isFloat, isUUID, isTime := true, true, true, true, true
	exact := true // every integer literal is exact as a float64
	n, ints, floats := 0, 0, 0
	firstNotInt, firstNotFloat := -1, -1
	firstNotInt64 := -1
	for i, s := range samples {
		if isNullText(s) {
			continue
		}
		s = strings.TrimSpace(s)
		n++
		_, errI := strconv.ParseInt(s, 10, 64)
		_, errU := strconv.ParseUint(s, 10, 64)
		integer := errI == nil || errU == nil
		if errI != nil {
			isInt = false
			if firstNotInt64 < 0 {
				firstNotInt64 = i
			}
		}
		if errU != nil {
			isUint = false
		}
		if integer {
			ints++
		} else if firstNotInt < 0 {
			firstNotInt = i
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			isFloat = false
			if firstNotFloat < 0 {
				firstNotFloat = i
			}
		default:
			floats++
			if integer && math.Abs(f) >= 1<<53 {
				exact = false
			}
		}
		if isUUID {
			if len(s) != 36 || s[8] != '-' {
				isUUID = false
			} else if _, err := parseUUID(s); err != nil {
				isUUID = false
			}
		}
		if isTime {
			if len(s) < 10 || s[4] != '-' {
				isTime = false
			} else if _, err := parseTimestamp(s); err != nil {
				isTime = false
			}
		}
	}
	switch {
	case n == 0:
		return Text, -1, Text
	case isInt:
		return Int64, -1, Int64
	case isUint && ints == n:
		return Uint64, -1, Uint64
	case isFloat && exact:
		t = Float64
	case isUUID:
		return UUID, -1, UUID
	case isTime:
		return Timestamp, -1, Timestamp
	default:
		t = Text
	}
	switch {
	case ints == n: // integers that fit neither int64 nor uint64 together
		return t, firstNotInt64, Int64
	case ints*10 >= n*9:
		return t, firstNotInt, Int64
	case t == Text && floats*10 >= n*9:
		return t, firstNotFloat, Float64
	}
	return t, -1, t
}
