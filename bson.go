package shardkey

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BSON type bytes (bsonspec.org) of the values shardkey holds natively.
const (
	bsonDouble   = 0x01
	bsonString   = 0x02
	bsonBinary   = 0x05
	bsonObjectID = 0x07
	bsonBool     = 0x08
	bsonDate     = 0x09
	bsonNull     = 0x0A
	bsonInt32    = 0x10
	bsonInt64    = 0x12
)

// maxExtJSON bounds one Extended JSON value (a BSON document is at most
// 16 MiB in MongoDB).
const maxExtJSON = 16 << 20

// ParseExtJSON parses one value written in MongoDB Extended JSON v2,
// canonical or relaxed ({"$oid": "..."}, {"$date": ...}, {"$numberLong":
// "..."}, {"$binary": {"base64": ..., "subType": "04"}}, {"$timestamp": ...},
// {"$minKey": 1}, embedded documents and arrays, plain JSON numbers,
// strings, booleans and null), as the MongoDB Go driver's parser reads it
// (go.mongodb.org/mongo-driver/v2/bson; the format is the MongoDB
// specification extended-json.md). The result is an ExtJSON value holding
// the BSON type byte and value bytes; NativeBSON maps it to shardkey's own
// type where one exists. The error says why s is not one Extended JSON
// value.
func ParseExtJSON(s string) (Value, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxExtJSON {
		return Value{}, fmt.Errorf("Extended JSON value of %d bytes: at most %d", len(s), maxExtJSON)
	}
	if !utf8.ValidString(s) {
		return Value{}, fmt.Errorf("%.40q is not valid UTF-8 (JSON text must be)", s)
	}
	if !json.Valid([]byte(s)) {
		return Value{}, fmt.Errorf("%.40q is not one JSON value (want MongoDB Extended JSON, e.g. {\"$oid\": \"5b2be413c06d924ab26ff9ca\"})", s)
	}
	doc := make([]byte, 0, len(s)+8)
	doc = append(append(append(doc, `{"v":`...), s...), '}')
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON(doc, false, &raw); err != nil {
		return Value{}, fmt.Errorf("%.40q is not MongoDB Extended JSON: %v", s, err)
	}
	elems, err := raw.Elements()
	if err != nil || len(elems) != 1 || elems[0].Key() != "v" {
		return Value{}, fmt.Errorf("%.40q is not one Extended JSON value", s)
	}
	rv := elems[0].Value()
	b := make([]byte, 0, 1+len(rv.Value))
	b = append(append(b, byte(rv.Type)), rv.Value...)
	return Value{Type: ExtJSON, Str: string(b)}, nil
}

// NativeBSON returns v, an ExtJSON value, as shardkey's own type where
// there is one: double Float64, string Text, int32 Int32, int64 Int64,
// ObjectId ObjectID, bool Bool, Date Date, null Null, BinData subtype 0
// Bytes and subtype 4 of 16 bytes UUID. Other values (embedded documents,
// arrays, Timestamp, Decimal128, MinKey, MaxKey, regex, ...) and values of
// other types are returned unchanged. MongoDB hashes both forms alike.
func NativeBSON(v Value) Value {
	if v.Type != ExtJSON || len(v.Str) == 0 {
		return v
	}
	t, d := v.Str[0], v.Str[1:]
	switch {
	case t == bsonDouble && len(d) == 8:
		return Value{Type: Float64, Float: math.Float64frombits(binary.LittleEndian.Uint64([]byte(d)))}
	case t == bsonString && len(d) >= 5 && int(binary.LittleEndian.Uint32([]byte(d))) == len(d)-4 && d[len(d)-1] == 0:
		return Value{Type: Text, Str: d[4 : len(d)-1]}
	case t == bsonInt32 && len(d) == 4:
		return Value{Type: Int32, Int: int64(int32(binary.LittleEndian.Uint32([]byte(d))))}
	case t == bsonInt64 && len(d) == 8:
		return Value{Type: Int64, Int: int64(binary.LittleEndian.Uint64([]byte(d)))}
	case t == bsonObjectID && len(d) == 12:
		return Value{Type: ObjectID, Str: d}
	case t == bsonBool && len(d) == 1:
		return Value{Type: Bool, Int: int64(d[0] & 1)}
	case t == bsonDate && len(d) == 8:
		return Value{Type: Date, Int: int64(binary.LittleEndian.Uint64([]byte(d)))}
	case t == bsonNull && len(d) == 0:
		return Value{}
	case t == bsonBinary && len(d) >= 5 && int(binary.LittleEndian.Uint32([]byte(d))) == len(d)-5:
		switch sub := d[4]; {
		case sub == 0:
			return Value{Type: Bytes, Str: d[5:]}
		case sub == 4 && len(d) == 21:
			return Value{Type: UUID, Str: d[5:]}
		}
	}
	return v
}

// appendExtJSON appends the canonical Extended JSON v2 of an ExtJSON
// value's bytes (hex of the bytes if they are not a BSON value).
func appendExtJSON(b []byte, raw string) []byte {
	if len(raw) == 0 {
		return b
	}
	doc := make([]byte, 4, 8+len(raw))
	doc = append(doc, raw[0], 'v', 0)
	doc = append(doc, raw[1:]...)
	doc = append(doc, 0)
	binary.LittleEndian.PutUint32(doc, uint32(len(doc)))
	out, err := bson.MarshalExtJSON(bson.Raw(doc), true, false)
	if err != nil || len(out) < 6 || string(out[:5]) != `{"v":` || out[len(out)-1] != '}' {
		return hex.AppendEncode(b, []byte(raw))
	}
	return append(b, out[5:len(out)-1]...)
}

// parseObjectID parses 24 hex digits, optionally as ObjectId("...") or
// {"$oid": "..."}, into the 12 raw bytes.
func parseObjectID(s string) (string, error) {
	h := strings.TrimSpace(s)
	if strings.HasPrefix(h, "{") {
		v, err := ParseExtJSON(h)
		if err != nil {
			return "", err
		}
		if v = NativeBSON(v); v.Type != ObjectID {
			return "", fmt.Errorf("%.40q is not an ObjectId", s)
		}
		return v.Str, nil
	}
	if strings.HasPrefix(h, "ObjectId(") && strings.HasSuffix(h, ")") {
		h = strings.Trim(h[len("ObjectId("):len(h)-1], `"' `)
	}
	raw, err := hex.DecodeString(h)
	if err != nil || len(raw) != 12 {
		return "", fmt.Errorf("%.40q is not an objectid (want 24 hex digits)", s)
	}
	return string(raw), nil
}

// minDateMs and maxDateMs bound the dates written in RFC 3339 (years 0000
// to 9999); other dates are written as milliseconds.
const (
	minDateMs = -62167219200000
	maxDateMs = 253402300799999
)

// parseDate parses milliseconds since the epoch (a decimal integer), a
// time in the forms of Timestamp (RFC 3339, ...), or {"$date": ...}, into
// milliseconds since the epoch (UTC).
func parseDate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(t, 10, 64); err == nil {
		return ms, nil
	}
	if strings.HasPrefix(t, "{") {
		v, err := ParseExtJSON(t)
		if err != nil {
			return 0, err
		}
		if v = NativeBSON(v); v.Type != Date {
			return 0, fmt.Errorf("%.40q is not a date", s)
		}
		return v.Int, nil
	}
	for _, l := range timeLayouts {
		if tm, err := time.Parse(l, t); err == nil {
			return tm.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("%.40q is not a date (want milliseconds since the epoch or RFC 3339)", s)
}

func appendDate(b []byte, ms int64) []byte {
	if ms < minDateMs || ms > maxDateMs {
		return strconv.AppendInt(b, ms, 10)
	}
	return time.UnixMilli(ms).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
}

// parseBool parses true/false, t/f or 1/0 (any case).
func parseBool(s string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "t", "1":
		return 1, nil
	case "false", "f", "0":
		return 0, nil
	}
	return 0, fmt.Errorf("%.40q is not a bool (want true or false)", s)
}

// ParseTypes parses a key's column types: one type name, or a
// comma-separated list for a composite key ("int32,text"), each a name
// ParseType accepts. It fails on an empty list or element.
func ParseTypes(s string) ([]Type, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no type given")
	}
	parts := strings.Split(s, ",")
	if len(parts) > 64 {
		return nil, fmt.Errorf("%d key columns: at most 64", len(parts))
	}
	types := make([]Type, len(parts))
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("type list %q has an empty element", s)
		}
		t, err := ParseType(p)
		if err != nil {
			return nil, err
		}
		types[i] = t
	}
	return types, nil
}

// ParseKey parses the value of a composite key of the given types,
// written as a JSON array with one element per type ([11, "abc"]): a JSON
// string element is parsed as its type's text form (ParseValue), any other
// element (a number, true/false, null, an object such as {"$oid": ...}) by
// its JSON text; an extjson element is always read as Extended JSON.
func ParseKey(s string, types []Type) ([]Value, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(s), &elems); err != nil {
		return nil, fmt.Errorf("a key of %d types is a JSON array of %d values: %v", len(types), len(types), err)
	}
	if len(elems) != len(types) {
		return nil, fmt.Errorf("a key of %d types needs %d values, got %d", len(types), len(types), len(elems))
	}
	key := make([]Value, len(types))
	for i, raw := range elems {
		text := strings.TrimSpace(string(raw))
		if types[i] != ExtJSON && strings.HasPrefix(text, `"`) {
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, fmt.Errorf("value %d: %v", i+1, err)
			}
			if types[i] == Text {
				key[i] = TextValue(text)
				continue
			}
		}
		v, err := ParseValue(text, types[i])
		if err != nil {
			return nil, fmt.Errorf("value %d: %v", i+1, err)
		}
		key[i] = v
	}
	return key, nil
}

// ToBSON returns v as an ExtJSON value (its BSON type byte and value
// bytes): Int16/Int32 as int32, Int64 and Timestamp (as a Date of its
// milliseconds, floored) as int64 and Date, Float as double, Text as
// string, Bytes and UUID as BinData subtypes 0 and 4, ObjectID, Date, Bool
// and NULL as themselves; ok is false for Uint64 values beyond int64.
func ToBSON(v Value) (Value, bool) {
	var b []byte
	switch v.Type {
	case ExtJSON:
		return v, true
	case Null:
		b = []byte{bsonNull}
	case Int16, Int32:
		b = binary.LittleEndian.AppendUint32([]byte{bsonInt32}, uint32(v.Int))
	case Int64:
		b = binary.LittleEndian.AppendUint64([]byte{bsonInt64}, uint64(v.Int))
	case Uint64:
		if v.Int < 0 {
			return v, false
		}
		b = binary.LittleEndian.AppendUint64([]byte{bsonInt64}, uint64(v.Int))
	case Float32:
		b = binary.LittleEndian.AppendUint64([]byte{bsonDouble}, math.Float64bits(float64(float32(v.Float))))
	case Float64:
		b = binary.LittleEndian.AppendUint64([]byte{bsonDouble}, math.Float64bits(v.Float))
	case Text:
		b = binary.LittleEndian.AppendUint32([]byte{bsonString}, uint32(len(v.Str)+1))
		b = append(append(b, v.Str...), 0)
	case Bytes, UUID:
		b = binary.LittleEndian.AppendUint32([]byte{bsonBinary}, uint32(len(v.Str)))
		sub := byte(0)
		if v.Type == UUID {
			sub = 4
		}
		b = append(append(b, sub), v.Str...)
	case ObjectID:
		b = append([]byte{bsonObjectID}, v.Str...)
	case Date:
		b = binary.LittleEndian.AppendUint64([]byte{bsonDate}, uint64(v.Int))
	case Timestamp:
		ms := v.Int / 1000
		if v.Int%1000 < 0 {
			ms--
		}
		b = binary.LittleEndian.AppendUint64([]byte{bsonDate}, uint64(ms))
	case Bool:
		b = []byte{bsonBool, byte(v.Int & 1)}
	default:
		return v, false
	}
	return Value{Type: ExtJSON, Str: string(b)}, true
}
