package partition

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestMongoDB_SplitPoints(t *testing.T) {
	const m int64 = math.MaxInt64
	check := func(n int, want ...int64) {
		t.Helper()
		got := MongoHashedSplitPoints(n)
		if len(got) != len(want) {
			t.Fatalf("MongoHashedSplitPoints(%d) = %v; want %v", n, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("MongoHashedSplitPoints(%d) = %v; want %v", n, got, want)
			}
		}
	}
	check(1)
	check(2, 0)
	iv3 := (m / 3) * 2
	check(3, -iv3/2, iv3/2)
	iv4 := (m / 4) * 2
	check(4, -iv4, 0, iv4)
	for n := 1; n <= 64; n++ {
		l := mustLayout(t, MongoDB{}, n)
		if l.Shards() != n {
			t.Fatalf("Layout(%d).Shards() = %d", n, l.Shards())
		}
		if l.Shard(0) != 0 || l.Shard(math.MaxUint64) != n-1 {
			t.Errorf("Layout(%d): extremes on %d and %d", n, l.Shard(0), l.Shard(math.MaxUint64))
		}
	}
}

var (
	reMongoNum    = regexp.MustCompile(`^NumberInt/NumberLong (-?\d+)$`)
	reMongoDouble = regexp.MustCompile(`^Double (\S+)$`)
	reMongoString = regexp.MustCompile(`^(String|Symbol|Code) '(.*)'$`)
	reMongoBin    = regexp.MustCompile(`^BinData\(subtype (\d+), hex ([0-9a-f]*)\)$`)
	reMongoOID    = regexp.MustCompile(`^ObjectId\("([0-9a-f]{24})"\)$`)
	reMongoDate   = regexp.MustCompile(`^Date\(ms=(-?\d+)\)$`)
	reMongoTS     = regexp.MustCompile(`^Timestamp\(t=(\d+), i=(\d+)\)$`)
	reMongoRegex  = regexp.MustCompile(`^RegEx\(/(.*)/(\w*)\)$`)
	reMongoDBRef  = regexp.MustCompile(`^DBRef\("([^"]*)", ObjectId\("([0-9a-f]{24})"\)\)$`)
)

// mongoInputs parses one MongoDB vector input into the shardkey values
// that must all hash to its output: the value as its own shardkey type
// where there is one (and for the same number, every numeric type that
// holds it), and always as Extended JSON (the ExtJSON value of `place
// --type extjson`), in canonical form and, where it differs, relaxed.
func mongoInputs(t *testing.T, v vec) []shardkey.Value {
	t.Helper()
	in := v.str("input")
	var vals []shardkey.Value
	ext := func(s ...string) {
		t.Helper()
		for _, x := range s {
			val, err := shardkey.ParseValue(x, shardkey.ExtJSON)
			if err != nil {
				t.Fatalf("%s: extjson %s: %v", v.where(), x, err)
			}
			vals = append(vals, val)
		}
	}
	q := strconv.Quote
	b64 := func(h string) string { return q(base64.StdEncoding.EncodeToString([]byte(decodeHex(t, h)))) }
	switch in {
	case "MinKey":
		ext(`{"$minKey": 1}`)
		return vals
	case "MaxKey":
		ext(`{"$maxKey": 1}`)
		return vals
	case "null":
		vals = append(vals, shardkey.Value{})
		ext("null")
		return vals
	case "bool":
		// hasher_test.cpp HashBoolean: BSON("check" << true).
		vals = append(vals, shardkey.Value{Type: shardkey.Bool, Int: 1})
		ext("true")
		return vals
	case "Object {}":
		ext("{}")
		return vals
	case "Array []":
		ext("[]")
		return vals
	}
	if m := reMongoNum.FindStringSubmatch(in); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		vals = append(vals, shardkey.IntValue(n), shardkey.Value{Type: shardkey.Float64, Float: float64(n)})
		ext(`{"$numberLong": "`+m[1]+`"}`, m[1])
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			vals = append(vals, shardkey.Value{Type: shardkey.Int32, Int: n})
			ext(`{"$numberInt": "` + m[1] + `"}`)
		}
		return vals
	}
	if m := reMongoDouble.FindStringSubmatch(in); m != nil {
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("%s: %v", v.where(), err)
		}
		vals = append(vals, shardkey.FloatValue(f))
		ext(`{"$numberDouble": "`+m[1]+`"}`, m[1])
		return vals
	}
	if m := reMongoString.FindStringSubmatch(in); m != nil {
		switch m[1] {
		case "String":
			vals = append(vals, shardkey.TextValue(m[2]))
			ext(q(m[2]))
		case "Symbol":
			// A symbol hashes as the string of the same text.
			vals = append(vals, shardkey.TextValue(m[2]))
			ext(`{"$symbol": ` + q(m[2]) + `}`)
		default:
			ext(`{"$code": ` + q(m[2]) + `}`)
		}
		return vals
	}
	if m := reMongoBin.FindStringSubmatch(in); m != nil {
		st, _ := strconv.Atoi(m[1])
		switch st {
		case 0:
			vals = append(vals, bytesValue(decodeHex(t, m[2])))
		case 4:
			vals = append(vals, shardkey.Value{Type: shardkey.UUID, Str: decodeHex(t, m[2])})
		}
		ext(fmt.Sprintf(`{"$binary": {"base64": %s, "subType": "%02x"}}`, b64(m[2]), st))
		return vals
	}
	if m := reMongoOID.FindStringSubmatch(in); m != nil {
		vals = append(vals, shardkey.Value{Type: shardkey.ObjectID, Str: decodeHex(t, m[1])})
		ext(`{"$oid": "` + m[1] + `"}`)
		return vals
	}
	if m := reMongoDate.FindStringSubmatch(in); m != nil {
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		vals = append(vals, shardkey.Value{Type: shardkey.Date, Int: ms})
		ext(`{"$date": {"$numberLong": "` + m[1] + `"}}`)
		if ms <= math.MaxInt64/1000 && ms >= math.MinInt64/1000 {
			vals = append(vals, shardkey.TimeValue(ms*1000))
		}
		return vals
	}
	if m := reMongoTS.FindStringSubmatch(in); m != nil {
		ext(`{"$timestamp": {"t": ` + m[1] + `, "i": ` + m[2] + `}}`)
		return vals
	}
	if m := reMongoRegex.FindStringSubmatch(in); m != nil {
		ext(`{"$regularExpression": {"pattern": ` + q(m[1]) + `, "options": ` + q(m[2]) + `}}`)
		return vals
	}
	if m := reMongoDBRef.FindStringSubmatch(in); m != nil {
		// hasher_test.cpp's DBRef is the deprecated BSON DBPointer type.
		ext(`{"$dbPointer": {"$ref": ` + q(m[1]) + `, "$id": {"$oid": "` + m[2] + `"}}}`)
		return vals
	}
	t.Fatalf("%s: cannot parse MongoDB input %q", v.where(), in)
	return nil
}

func checkMongoDBVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := MongoDB{}
	checked, values, chunks := 0, 0, 0
	eachVec(t, f, func(v vec) {
		v.wantKind("hashed_shard_key_int64")
		if enc := v.str("input_encoding"); enc != "BSON value (type named in input)" {
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		want := v.int64("output")
		for _, val := range mongoInputs(t, v) {
			key := []shardkey.Value{val}
			h, err := e.Hash(key)
			if err != nil || h != SignedHash(want) {
				t.Errorf("%s: Hash(%s %v) = %v, %v; want %d", v.where(), val.Type, val, h, err, want)
			}
			if n := shardkey.NativeBSON(val); n != val {
				if h, err := e.Hash([]shardkey.Value{n}); err != nil || h != SignedHash(want) {
					t.Errorf("%s: Hash(NativeBSON %s %v) = %v, %v; want %d", v.where(), n.Type, n, h, err, want)
				}
			}
			if v.has("initial_chunk_index_for_numInitialChunks") {
				p, err := e.Point(key)
				if err != nil {
					t.Fatalf("%s: Point: %v", v.where(), err)
				}
				for _, c := range v.counts("initial_chunk_index_for_numInitialChunks") {
					if got := mustLayout(t, e, c[0]).Shard(p); got != c[1] {
						t.Errorf("%s: chunk for %d initial chunks = %d; want %d", v.where(), c[0], got, c[1])
					}
					chunks++
				}
			}
			values++
		}
		checked++
	})
	t.Logf("%s: %d vectors checked as %d shardkey values (native types and Extended JSON), %d initial-chunk indices", file, checked, values, chunks)
}

func TestMongoDB_Squashing(t *testing.T) {
	want, _ := (MongoDB{}).Hash([]shardkey.Value{shardkey.IntValue(0)})
	for _, f := range []float64{math.NaN(), 0.456, -0.9} {
		if got, _ := (MongoDB{}).Hash([]shardkey.Value{shardkey.FloatValue(f)}); got != want {
			t.Errorf("Hash(%v) = %v; want Hash(0) = %v", f, got, want)
		}
	}
	max, _ := (MongoDB{}).Hash([]shardkey.Value{shardkey.IntValue(math.MaxInt64)})
	for _, v := range []shardkey.Value{shardkey.FloatValue(1e300), shardkey.FloatValue(math.Inf(1)),
		{Type: shardkey.Uint64, Int: -1}} {
		if got, _ := (MongoDB{}).Hash([]shardkey.Value{v}); got != max {
			t.Errorf("Hash(%s %v) = %v; want Hash(INT64_MAX)", v.Type, v, got)
		}
	}
}

// TestMongoDB_EmbeddedValues checks MongoHashBSON on documents, arrays and
// CodeWScope against streams built by hand from hasher.cpp's
// recursiveHash (the vectors file's algorithm text): each child element
// is its canonical type (int32 LE), its name and NUL, its value (numbers
// as int64 LE), and the document ends with EOO, int32 LE 0 with no name.
func TestMongoDB_EmbeddedValues(t *testing.T) {
	le32 := func(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
	le64 := func(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }
	// {"a": 1, "b": ["x"]}: a: number 1; b: array with element "0": "x".
	var doc []byte
	doc = le64(append(le32(doc, mongoNumber), "a\x00"...), 1)
	doc = append(le32(doc, mongoArray), "b\x00"...)
	doc = append(append(le32(doc, mongoString), "0\x00"...), appendBSONString(nil, "x")...)
	doc = le32(doc, 0) // EOO of the array
	doc = le32(doc, 0) // EOO of the document
	// CodeWScope "f()" with scope {"n": 2.5}: code and NUL, then n as the
	// number 2 (truncated), then EOO.
	var cws []byte
	cws = append(cws, "f()\x00"...)
	cws = le64(append(le32(cws, mongoNumber), "n\x00"...), 2)
	cws = le32(cws, 0)
	for _, c := range []struct {
		ext       string
		canonType int32
		stream    []byte
	}{
		{`{"a": 1, "b": ["x"]}`, mongoObject, doc},
		{`{"a": {"$numberLong": "1"}, "b": ["x"]}`, mongoObject, doc},
		{`{"a": 1.9, "b": [{"$symbol": "x"}]}`, mongoObject, doc},
		{`{"$code": "f()", "$scope": {"n": 2.5}}`, mongoCodeWScope, cws},
	} {
		v, err := shardkey.ParseValue(c.ext, shardkey.ExtJSON)
		if err != nil {
			t.Fatalf("%s: %v", c.ext, err)
		}
		want := MongoHashElement(c.canonType, c.stream)
		if got, err := MongoHashBSON(v.Str); err != nil || got != want {
			t.Errorf("MongoHashBSON(%s) = %d, %v; want %d", c.ext, got, err, want)
		}
	}
	// Field order matters; names are hashed.
	a, _ := shardkey.ParseValue(`{"a": 1, "b": 2}`, shardkey.ExtJSON)
	b, _ := shardkey.ParseValue(`{"b": 2, "a": 1}`, shardkey.ExtJSON)
	ha, _ := MongoHashBSON(a.Str)
	hb, _ := MongoHashBSON(b.Str)
	if ha == hb {
		t.Error(`{"a": 1, "b": 2} and {"b": 2, "a": 1} hash alike`)
	}
	// Malformed bytes are refused, never a panic.
	for _, raw := range []string{"", "\x03", "\x03\x05\x00\x00\x00", "\x02\xff\xff\xff\x7fab", "\x42", "\x10\x01", "\x03\x0d\x00\x00\x00\x10a\x00\x01\x00\x00\x00\x00"} {
		if _, err := MongoHashBSON(raw); err == nil {
			t.Errorf("MongoHashBSON(%q) succeeded", raw)
		}
	}
}
