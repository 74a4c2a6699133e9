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
// "2006-01-02" (UTC). An empty string is NULL for every type but Text.
func ParseValue(s string, t Type) (Value, error) {
	if s == "" && t != Text {
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

// InferType returns the narrowest type that every one of the sample strings
// parses as, in the order Int64, Float64, UUID, Timestamp, Text. Empty strings
// are NULL and do not vote. Integers are always Int64, never narrower, so that
// the same number hashes the same in every table.
func InferType(samples []string) Type {
	isInt, isFloat, isUUID, isTime := true, true, true, true
	seen := false
	for _, s := range samples {
		if s == "" {
			continue
		}
		seen = true
		if isInt {
			if _, err := strconv.ParseInt(s, 10, 64); err != nil {
				isInt = false
			}
		}
		if isFloat {
			if f, err := strconv.ParseFloat(s, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				isFloat = false
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
	case !seen:
		return Text
	case isInt:
		return Int64
	case isFloat:
		return Float64
	case isUUID:
		return UUID
	case isTime:
		return Timestamp
	}
	return Text
}
