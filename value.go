package shardkey

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a column type. It decides how a partition function serialises a
// value before hashing it, as the real column type would in the database
// (a Cassandra int hashes 4 bytes, a bigint 8; PostgreSQL has hashint4 and
// hashint8; a text column hashes its UTF-8 bytes).
type Type uint8

// Column types. The names are those of `place --type` and `--column-type`.
const (
	Null      Type = iota // no value (SQL NULL)
	Int16                 // 16-bit signed integer
	Int32                 // 32-bit signed integer
	Int64                 // 64-bit signed integer; the type integers are inferred as
	Uint64                // 64-bit unsigned integer
	Float32               // IEEE-754 single precision
	Float64               // IEEE-754 double precision
	Text                  // UTF-8 text
	Bytes                 // raw bytes (written in hex on the command line)
	UUID                  // 16-byte UUID
	Timestamp             // instant, stored as microseconds since the Unix epoch (UTC)
	ObjectID              // MongoDB ObjectId: 12 bytes (4-byte big-endian seconds, 5 random, 3 counter)
	Date                  // BSON Date: milliseconds since the Unix epoch (UTC), any int64
	Bool                  // boolean: Int 0 or 1
	ExtJSON               // any other BSON value: its BSON type byte then its BSON value bytes
	numTypes
)

var typeNames = [...]string{
	Null: "null", Int16: "int16", Int32: "int32", Int64: "int64", Uint64: "uint64",
	Float32: "float32", Float64: "float64", Text: "text", Bytes: "bytes", UUID: "uuid",
	Timestamp: "timestamp", ObjectID: "objectid", Date: "date", Bool: "bool", ExtJSON: "extjson",
}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// IsInt reports whether values of t are held in Value.Int as signed integers
// (Int16, Int32, Int64, Timestamp).
func (t Type) IsInt() bool { return t == Int16 || t == Int32 || t == Int64 || t == Timestamp }

// IsStr reports whether values of t are held in Value.Str (Text, Bytes,
// UUID, ObjectID, ExtJSON).
func (t Type) IsStr() bool {
	return t == Text || t == Bytes || t == UUID || t == ObjectID || t == ExtJSON
}

// IsNumeric reports whether t is an integer or floating-point type.
func (t Type) IsNumeric() bool { return t.IsInt() || t == Uint64 || t == Float32 || t == Float64 }

// ParseType returns the Type named s (see the constants; "int", "bigint",
// "string", "varchar", "float", "double" are accepted as aliases).
func ParseType(s string) (Type, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "int16", "smallint", "int2":
		return Int16, nil
	case "int32", "int", "integer", "int4":
		return Int32, nil
	case "int64", "bigint", "int8", "long":
		return Int64, nil
	case "uint64":
		return Uint64, nil
	case "float32", "float", "real", "float4":
		return Float32, nil
	case "float64", "double", "float8":
		return Float64, nil
	case "text", "string", "varchar":
		return Text, nil
	case "bytes", "blob", "bytea", "binary":
		return Bytes, nil
	case "uuid":
		return UUID, nil
	case "timestamp", "time", "timestamptz":
		return Timestamp, nil
	case "objectid", "oid":
		return ObjectID, nil
	case "date":
		return Date, nil
	case "bool", "boolean":
		return Bool, nil
	case "extjson", "bson":
		return ExtJSON, nil
	}
	return Null, fmt.Errorf("unknown type %q (want int16, int32, int64, uint64, float32, float64, text, bytes, uuid, timestamp, objectid, date, bool or extjson)", s)
}

// Value is one typed cell. Which field holds the value depends on Type:
// Int for Int16, Int32, Int64 and Timestamp (microseconds since the epoch),
// Int for Uint64 as the same 64 bits, Int for Date (milliseconds since the
// epoch) and Bool (0 or 1), Float for Float32 and Float64, and Str for Text
// (UTF-8), Bytes (raw), UUID (the 16 raw bytes), ObjectID (the 12 raw
// bytes) and ExtJSON (a BSON element without its name: the type byte, then
// the value's BSON bytes; see ParseExtJSON).
// The zero Value is Null. Values are comparable with ==.
type Value struct {
	Type  Type
	Int   int64
	Float float64
	Str   string
}

// IntValue, TextValue and FloatValue build common values.
func IntValue(v int64) Value       { return Value{Type: Int64, Int: v} }
func TextValue(s string) Value     { return Value{Type: Text, Str: s} }
func FloatValue(f float64) Value   { return Value{Type: Float64, Float: f} }
func TimeValue(micros int64) Value { return Value{Type: Timestamp, Int: micros} }

// Uint returns the value of a Uint64 as uint64.
func (v Value) Uint() uint64 { return uint64(v.Int) }

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.Type == Null }

// String returns the value's text form: integers in decimal, floats as Python's
// repr prints them (seed 000's h() joins str(part)), text as is, bytes in hex,
// UUIDs in the canonical 8-4-4-4-12 form, timestamps in RFC 3339 (UTC),
// ObjectIds in 24 hex digits, dates in RFC 3339 with milliseconds (UTC;
// decimal milliseconds outside years 0000..9999), bools as true/false,
// other BSON values as canonical Extended JSON v2. ParseValue of the text
// form under the same type gives the value back.
func (v Value) String() string { return string(v.AppendText(nil)) }

// AppendText appends the text form of v (see String) to b.
func (v Value) AppendText(b []byte) []byte {
	switch v.Type {
	case Null:
		return append(b, "None"...)
	case Int16, Int32, Int64:
		return strconv.AppendInt(b, v.Int, 10)
	case Uint64:
		return strconv.AppendUint(b, uint64(v.Int), 10)
	case Float32:
		return appendPythonFloat(b, float64(float32(v.Float)), 32)
	case Float64:
		return appendPythonFloat(b, v.Float, 64)
	case Text:
		return append(b, v.Str...)
	case Bytes:
		return hex.AppendEncode(b, []byte(v.Str))
	case UUID:
		return appendUUID(b, v.Str)
	case Timestamp:
		return appendTimestamp(b, v.Int)
	case ObjectID:
		return hex.AppendEncode(b, []byte(v.Str))
	case Date:
		return appendDate(b, v.Int)
	case Bool:
		return strconv.AppendBool(b, v.Int != 0)
	case ExtJSON:
		return appendExtJSON(b, v.Str)
	}
	return b
}

// appendPythonFloat formats f as Python's repr does: shortest round-trip
// digits, exponent form when the decimal exponent is < -4 or >= 16, and a
// trailing ".0" on integral values in positional form.
func appendPythonFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	e := strconv.AppendFloat(nil, f, 'e', -1, bits) // d.ddde±XX
	i := strings.IndexByte(string(e), 'e')
	exp, _ := strconv.Atoi(string(e[i+1:]))
	if exp < -4 || exp >= 16 {
		mant := e[:i]
		b = append(b, mant...)
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	s := strconv.AppendFloat(nil, f, 'f', -1, bits)
	b = append(b, s...)
	if !strings.ContainsAny(string(s), ".") {
		b = append(b, ".0"...)
	}
	return b
}

func appendUUID(b []byte, raw string) []byte {
	if len(raw) != 16 {
		return hex.AppendEncode(b, []byte(raw))
	}
	for i := 0; i < 16; i++ {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = hex.AppendEncode(b, []byte{raw[i]})
	}
	return b
}

// Compare orders a and b: nulls first, then numbers by value (integers,
// unsigned and floats compared numerically), then text, bytes, UUIDs and
// ObjectIds by bytes (an ObjectId's leading seconds make its order its
// creation order), then bools, then dates by value, then other BSON values
// by their bytes. It returns -1, 0 or +1. Range partitioning uses this
// order.
func Compare(a, b Value) int {
	ca, cb := a.class(), b.class()
	if ca != cb {
		return cmpInt(int64(ca), int64(cb))
	}
	switch ca {
	case 0:
		return 0
	case 3, 4:
		return cmpInt(a.Int, b.Int)
	case 1:
		if a.Type != Float32 && a.Type != Float64 && b.Type != Float32 && b.Type != Float64 {
			if a.Type == Uint64 || b.Type == Uint64 {
				return cmpUintInt(a, b)
			}
			return cmpInt(a.Int, b.Int)
		}
		fa, fb := a.AsFloat(), b.AsFloat()
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	}
	return strings.Compare(a.Str, b.Str)
}

func cmpUintInt(a, b Value) int {
	// Either may be Uint64; negative signed values sort before every unsigned.
	if a.Type != Uint64 && a.Int < 0 {
		return -1
	}
	if b.Type != Uint64 && b.Int < 0 {
		return 1
	}
	ua, ub := uint64(a.Int), uint64(b.Int)
	switch {
	case ua < ub:
		return -1
	case ua > ub:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (v Value) class() int {
	switch {
	case v.Type == Null:
		return 0
	case v.Type.IsNumeric():
		return 1
	case v.Type == Bool:
		return 3
	case v.Type == Date:
		return 4
	case v.Type == ExtJSON:
		return 5
	}
	return 2
}

// AsFloat returns a numeric value as float64 (NaN for non-numeric values).
func (v Value) AsFloat() float64 {
	switch v.Type {
	case Int16, Int32, Int64, Timestamp:
		return float64(v.Int)
	case Uint64:
		return float64(uint64(v.Int))
	case Float32, Float64:
		return v.Float
	}
	return math.NaN()
}

// Canonical returns v in the form used to compare values across columns of
// different declared types: integers of every width as Int64 (so a user_id
// int32 in one table and int64 in another co-locate), Float32 widened to
// Float64. Other types are unchanged.
func (v Value) Canonical() Value {
	switch v.Type {
	case Int16, Int32:
		v.Type = Int64
	case Float32:
		v.Type = Float64
		v.Float = float64(float32(v.Float))
	}
	return v
}
