package partition

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
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

// mongoInput is one parsed MongoDB vector input: either a shardkey value
// (values, all of which must hash to the output) or, for BSON types
// shardkey has no Value for, the raw canonical type and value bytes.
type mongoInput struct {
	values []shardkey.Value
	raw    bool
	typ    int32
	bytes  []byte
	why    string // why raw
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

func parseMongoInput(t *testing.T, v vec) mongoInput {
	t.Helper()
	in := v.str("input")
	raw := func(typ int32, b []byte, why string) mongoInput {
		return mongoInput{raw: true, typ: typ, bytes: b, why: why}
	}
	bsonString := func(s string) []byte { return appendBSONString(nil, s) }
	switch {
	case in == "MinKey":
		return raw(mongoMinKey, nil, "MinKey has no shardkey value")
	case in == "MaxKey":
		return raw(mongoMaxKey, nil, "MaxKey has no shardkey value")
	case in == "null":
		return mongoInput{values: []shardkey.Value{{}}}
	case in == "bool":
		// hasher_test.cpp HashBoolean: BSON("check" << true).
		return raw(mongoBool, []byte{1}, "bool has no shardkey value")
	case in == "Object {}":
		return raw(mongoObject, []byte{0, 0, 0, 0}, "embedded object has no shardkey value")
	case in == "Array []":
		return raw(mongoArray, []byte{0, 0, 0, 0}, "array has no shardkey value")
	}
	if m := reMongoNum.FindStringSubmatch(in); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		vals := []shardkey.Value{shardkey.IntValue(n), {Type: shardkey.Float64, Float: float64(n)}}
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			vals = append(vals, shardkey.Value{Type: shardkey.Int32, Int: n})
		}
		return mongoInput{values: vals}
	}
	if m := reMongoDouble.FindStringSubmatch(in); m != nil {
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("%s: %v", v.where(), err)
		}
		return mongoInput{values: []shardkey.Value{shardkey.FloatValue(f)}}
	}
	if m := reMongoString.FindStringSubmatch(in); m != nil {
		switch m[1] {
		case "String":
			return mongoInput{values: []shardkey.Value{shardkey.TextValue(m[2])}}
		case "Symbol":
			// A symbol hashes as the string of the same text: check both.
			in := raw(mongoString, bsonString(m[2]), "BSON symbol has no shardkey value; checked as Text too")
			in.values = []shardkey.Value{shardkey.TextValue(m[2])}
			return in
		default:
			return raw(mongoCode, bsonString(m[2]), "BSON code has no shardkey value")
		}
	}
	if m := reMongoBin.FindStringSubmatch(in); m != nil {
		data := decodeHex(t, m[2])
		switch m[1] {
		case "0":
			return mongoInput{values: []shardkey.Value{bytesValue(data)}}
		case "4":
			return mongoInput{values: []shardkey.Value{{Type: shardkey.UUID, Str: data}}}
		}
		st, _ := strconv.Atoi(m[1])
		return raw(mongoBinData, appendBSONBinData(nil, byte(st), data), "BinData subtype "+m[1]+" has no shardkey value")
	}
	if m := reMongoOID.FindStringSubmatch(in); m != nil {
		return raw(mongoOID, []byte(decodeHex(t, m[1])), "ObjectId has no shardkey value")
	}
	if m := reMongoDate.FindStringSubmatch(in); m != nil {
		ms, _ := strconv.ParseInt(m[1], 10, 64)
		if ms > math.MaxInt64/1000 || ms < math.MinInt64/1000 {
			return raw(mongoDate, binary.LittleEndian.AppendUint64(nil, uint64(ms)),
				"Date beyond shardkey's microsecond Timestamp range")
		}
		return mongoInput{values: []shardkey.Value{shardkey.TimeValue(ms * 1000)}}
	}
	if m := reMongoTS.FindStringSubmatch(in); m != nil {
		sec, _ := strconv.ParseUint(m[1], 10, 32)
		inc, _ := strconv.ParseUint(m[2], 10, 32)
		b := binary.LittleEndian.AppendUint32(nil, uint32(inc))
		b = binary.LittleEndian.AppendUint32(b, uint32(sec))
		return raw(mongoDate, b, "BSON Timestamp has no shardkey value (shardkey Timestamp is a BSON Date)")
	}
	if m := reMongoRegex.FindStringSubmatch(in); m != nil {
		b := append([]byte(m[1]), 0)
		b = append(append(b, m[2]...), 0)
		return raw(mongoRegex, b, "regex has no shardkey value")
	}
	if m := reMongoDBRef.FindStringSubmatch(in); m != nil {
		return raw(mongoDBRef, append(bsonString(m[1]), decodeHex(t, m[2])...), "DBRef has no shardkey value")
	}
	t.Fatalf("%s: cannot parse MongoDB input %q", v.where(), in)
	return mongoInput{}
}

func checkMongoDBVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := MongoDB{}
	checked, chunks := 0, 0
	var rawOnly []string
	eachVec(t, f, func(v vec) {
		v.wantKind("hashed_shard_key_int64")
		if enc := v.str("input_encoding"); enc != "BSON value (type named in input)" {
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		want := v.int64("output")
		in := parseMongoInput(t, v)
		if in.raw {
			rawOnly = append(rawOnly, fmt.Sprintf("%q (%s)", v.str("input"), in.why))
			if got := MongoHashElement(in.typ, in.bytes); got != want {
				t.Errorf("%s: MongoHashElement(%d, %x) = %d; want %d", v.where(), in.typ, in.bytes, got, want)
			}
		}
		for _, val := range in.values {
			h, err := e.Hash([]shardkey.Value{val})
			if err != nil || h != SignedHash(want) {
				t.Errorf("%s: Hash(%s %v) = %v, %v; want %d", v.where(), val.Type, val, h, err, want)
			}
		}
		if v.has("initial_chunk_index_for_numInitialChunks") {
			p := uint64(want) ^ 1<<63
			if len(in.values) > 0 {
				var err error
				if p, err = e.Point(in.values[:1]); err != nil {
					t.Fatalf("%s: Point: %v", v.where(), err)
				}
			}
			for _, c := range v.counts("initial_chunk_index_for_numInitialChunks") {
				if got := mustLayout(t, e, c[0]).Shard(p); got != c[1] {
					t.Errorf("%s: chunk for %d initial chunks = %d; want %d", v.where(), c[0], got, c[1])
				}
				chunks++
			}
		}
		checked++
	})
	t.Logf("%s: %d vectors checked, %d initial-chunk indices", file, checked, chunks)
	t.Logf("checked through MongoHashElement with raw BSON value bytes, no shardkey.Value exists for: %s",
		strings.Join(rawOnly, "; "))
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
