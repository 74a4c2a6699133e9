package partition

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// vecA wraps one vector with typed accessors that fail the test on a
// missing or mistyped field.
type vecA struct {
	t *testing.T
	i int
	m map[string]any
}

func (v vecA) where() string { return fmt.Sprintf("vector %d (input %v)", v.i, v.m["input"]) }

func (v vecA) has(k string) bool { _, ok := v.m[k]; return ok }

// wantKind fails the test unless the vector's output_kind is kind, so a
// vector of a kind the checker does not understand is never passed over.
func (v vecA) wantKind(kind string) {
	v.t.Helper()
	if k := v.str("output_kind"); k != kind {
		v.t.Fatalf("%s: unknown output_kind %q (this checker knows %q)", v.where(), k, kind)
	}
}

func (v vecA) str(k string) string {
	v.t.Helper()
	s, ok := v.m[k].(string)
	if !ok {
		v.t.Fatalf("%s: field %q is %T, want string", v.where(), k, v.m[k])
	}
	return s
}

func (v vecA) int64(k string) int64 {
	v.t.Helper()
	return jsonInt64A(v.t, v.where()+" field "+k, v.m[k])
}

func jsonInt64A(t *testing.T, what string, x any) int64 {
	t.Helper()
	n, ok := x.(json.Number)
	if !ok {
		t.Fatalf("%s is %T, want a number", what, x)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return i
}

// counts returns a "<n>": int map field (partitions or chunk indices by
// count), sorted by count.
func (v vecA) counts(k string) [][2]int {
	v.t.Helper()
	m, ok := v.m[k].(map[string]any)
	if !ok {
		v.t.Fatalf("%s: field %q is %T, want object", v.where(), k, v.m[k])
	}
	var out [][2]int
	for ks, x := range m {
		n, err := strconv.Atoi(ks)
		if err != nil {
			v.t.Fatalf("%s: %s key %q: %v", v.where(), k, ks, err)
		}
		out = append(out, [2]int{n, int(jsonInt64A(v.t, v.where()+" "+k, x))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func eachA(t *testing.T, f vectorFile, fn func(v vecA)) {
	for i, m := range f.Vectors {
		fn(vecA{t, i, m})
	}
}

func hexA(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return string(b)
}

func bytesA(raw string) shardkey.Value { return shardkey.Value{Type: shardkey.Bytes, Str: raw} }

func layoutA(t testing.TB, e Engine, n int) Layout {
	t.Helper()
	l, err := e.Layout(n)
	if err != nil {
		t.Fatalf("%s.Layout(%d): %v", e.Name(), n, err)
	}
	return l
}

func checkRedisVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := Redis{}
	checked := 0
	eachA(t, f, func(v vecA) {
		var key shardkey.Value
		switch enc := v.str("input_encoding"); enc {
		case "utf8 string":
			key = shardkey.TextValue(v.str("input"))
		case "hex bytes (binary-safe key)":
			key = bytesA(hexA(t, v.str("input")))
		default:
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		if k := v.str("output_kind"); k != "hash_slot" {
			t.Fatalf("%s: unknown output_kind %q", v.where(), k)
		}
		want := v.int64("output")
		h, err := e.Hash([]shardkey.Value{key})
		if err != nil || h != UnsignedHash(uint64(want)) {
			t.Errorf("%s: Hash = %v, %v; want %d", v.where(), h, err, want)
		}
		if got := RedisKeySlot(key.Str); int64(got) != want {
			t.Errorf("%s: RedisKeySlot = %d; want %d", v.where(), got, want)
		}
		checked++
	})
	t.Logf("%s: %d vectors checked", file, checked)
}

func TestRedis_CRC16Check(t *testing.T) {
	if got := crc16XModem("123456789"); got != 0x31C3 {
		t.Errorf("crc16XModem(123456789) = %#x; want 0x31c3", got)
	}
	// The sliced CRC equals src/crc16.c's byte-at-a-time loop.
	ref := func(b []byte) uint16 {
		var c uint16
		for _, x := range b {
			c = c<<8 ^ crc16Tables[0][byte(c>>8)^x]
		}
		return c
	}
	b := make([]byte, 64)
	for n := 0; n <= len(b); n++ {
		for i := range b[:n] {
			b[i] = byte(i*131 + n*7)
		}
		if got, want := crc16XModem(b[:n]), ref(b[:n]); got != want {
			t.Errorf("crc16XModem(%x) = %#x; byte loop %#x", b[:n], got, want)
		}
	}
}

// cqlValue builds the shardkey value of a CQL-typed vector input.
func cqlValue(t *testing.T, v vecA, cqlType string, x any) shardkey.Value {
	t.Helper()
	switch cqlType {
	case "int":
		return shardkey.Value{Type: shardkey.Int32, Int: jsonInt64A(t, v.where(), x)}
	case "bigint":
		return shardkey.IntValue(jsonInt64A(t, v.where(), x))
	case "text":
		s, ok := x.(string)
		if !ok {
			t.Fatalf("%s: text input %T", v.where(), x)
		}
		return shardkey.TextValue(s)
	case "uuid":
		return shardkey.Value{Type: shardkey.UUID, Str: hexA(t, x.(string))}
	case "blob":
		return bytesA(hexA(t, x.(string)))
	}
	t.Fatalf("%s: unknown cql_type %q", v.where(), cqlType)
	return shardkey.Value{}
}

func checkCassandraVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := Cassandra{}
	checked, quirk := 0, 0
	eachA(t, f, func(v vecA) {
		v.wantKind("murmur3_token_int64")
		enc := v.str("input_encoding")
		cqlType := v.str("cql_type")
		var key []shardkey.Value
		switch {
		case strings.HasPrefix(enc, "CompositeType"):
			types := strings.Split(strings.TrimSuffix(strings.TrimPrefix(cqlType, "("), ") composite"), ", ")
			parts, ok := v.m["input"].([]any)
			if !ok || len(parts) != len(types) {
				t.Fatalf("%s: composite input %v does not match %q", v.where(), v.m["input"], cqlType)
			}
			for i, p := range parts {
				key = append(key, cqlValue(t, v, types[i], p))
			}
		case strings.HasPrefix(enc, "CQL int"), strings.HasPrefix(enc, "CQL bigint"),
			strings.HasPrefix(enc, "CQL text"), strings.HasPrefix(enc, "CQL uuid"), enc == "hex bytes":
			key = []shardkey.Value{cqlValue(t, v, cqlType, v.m["input"])}
		default:
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		kb, err := appendCassandraKey(nil, key)
		if err != nil {
			t.Fatalf("%s: key bytes: %v", v.where(), err)
		}
		if got, want := hex.EncodeToString(kb), v.str("key_bytes_hex"); got != want {
			t.Errorf("%s: key bytes %s; want %s", v.where(), got, want)
		}
		want := v.int64("output")
		h, err := e.Hash(key)
		if err != nil || h != SignedHash(want) {
			t.Errorf("%s: Hash = %v, %v; want %d", v.where(), h, err, want)
		}
		p, err := e.Point(key)
		if err != nil || p != uint64(want)^1<<63 {
			t.Errorf("%s: Point = %d, %v; want token+2^63", v.where(), p, err)
		}
		if v.has("canonical_murmur3_x64_128_h1_would_give") {
			quirk++
			if got, w := int64(murmur3H1(kb, false)), v.int64("canonical_murmur3_x64_128_h1_would_give"); got != w {
				t.Errorf("%s: canonical murmur3 h1 = %d; want %d", v.where(), got, w)
			}
		}
		checked++
	})
	t.Logf("%s: %d vectors checked (%d with the signed-tail quirk)", file, checked, quirk)
}

func TestCassandra_SpecialTokens(t *testing.T) {
	if got := CassandraToken(""); got != math.MinInt64 {
		t.Errorf("CassandraToken(empty) = %d; want Long.MIN_VALUE", got)
	}
	if _, err := (Cassandra{}).Point([]shardkey.Value{{}}); !errors.Is(err, ErrNoDestination) {
		t.Errorf("Point(NULL) error = %v; want ErrNoDestination", err)
	}
	check := func(u uint64, want string) {
		t.Helper()
		if got := hex.EncodeToString(appendVarint(nil, u)); got != want {
			t.Errorf("appendVarint(%d) = %s; want %s", u, got, want)
		}
	}
	check(0, "00")
	check(127, "7f")
	check(128, "0080")
	check(math.MaxUint64, "00ffffffffffffffff")
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

func parseMongoInput(t *testing.T, v vecA) mongoInput {
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
		data := hexA(t, m[2])
		switch m[1] {
		case "0":
			return mongoInput{values: []shardkey.Value{bytesA(data)}}
		case "4":
			return mongoInput{values: []shardkey.Value{{Type: shardkey.UUID, Str: data}}}
		}
		st, _ := strconv.Atoi(m[1])
		return raw(mongoBinData, appendBSONBinData(nil, byte(st), data), "BinData subtype "+m[1]+" has no shardkey value")
	}
	if m := reMongoOID.FindStringSubmatch(in); m != nil {
		return raw(mongoOID, []byte(hexA(t, m[1])), "ObjectId has no shardkey value")
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
		return raw(mongoDBRef, append(bsonString(m[1]), hexA(t, m[2])...), "DBRef has no shardkey value")
	}
	t.Fatalf("%s: cannot parse MongoDB input %q", v.where(), in)
	return mongoInput{}
}

func checkMongoDBVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := MongoDB{}
	checked, chunks := 0, 0
	var rawOnly []string
	eachA(t, f, func(v vecA) {
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
				if got := layoutA(t, e, c[0]).Shard(p); got != c[1] {
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

func checkKafkaVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	java, rdk := Kafka{}, KafkaLibrdkafka{}
	checked, parts := 0, 0
	eachA(t, f, func(v vecA) {
		v.wantKind("murmur2_int32")
		var key []shardkey.Value
		switch enc := v.str("input_encoding"); enc {
		case "StringSerializer (UTF-8 bytes)":
			key = []shardkey.Value{shardkey.TextValue(v.str("input"))}
		case "hex bytes (serialized key)":
			raw := hexA(t, v.str("input"))
			key = []shardkey.Value{bytesA(raw)}
			// The serialiser notes name the typed key the bytes came from:
			// check that the typed value serialises to the same bytes.
			note, _ := v.m["note"].(string)
			switch {
			case strings.HasPrefix(note, "IntegerSerializer"):
				key = append(key, shardkey.Value{Type: shardkey.Int32, Int: int64(int32(binary.BigEndian.Uint32([]byte(raw))))})
			case strings.HasPrefix(note, "LongSerializer"):
				key = append(key, shardkey.IntValue(int64(binary.BigEndian.Uint64([]byte(raw)))))
			}
		default:
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		want := v.int64("output")
		pos := v.int64("toPositive_murmur2")
		raw, err := appendKafkaKey(nil, key[0], "kafka")
		if err != nil {
			t.Fatal(err)
		}
		if got := int32(KafkaMurmur2(raw)); int64(got) != want {
			t.Errorf("%s: murmur2 = %d; want %d", v.where(), got, want)
		}
		for _, k := range key {
			one := []shardkey.Value{k}
			h, err := java.Hash(one)
			if err != nil || h != SignedHash(want) {
				t.Errorf("%s: Hash(%s) = %v, %v; want %d", v.where(), k.Type, h, err, want)
			}
			p, err := java.Point(one)
			if err != nil || int64(p) != pos {
				t.Errorf("%s: Point(%s) = %d, %v; want toPositive %d", v.where(), k.Type, p, err, pos)
			}
			for _, c := range v.counts("java_partition_for_numPartitions") {
				if got := layoutA(t, java, c[0]).Shard(p); got != c[1] {
					t.Errorf("%s: java partition of %d = %d; want %d", v.where(), c[0], got, c[1])
				}
				parts++
			}
			rp, rerr := rdk.Point(one)
			for _, c := range v.counts("librdkafka_consistent_crc32_partition_for_numPartitions") {
				// The vectors call rd_kafka_msg_partitioner_consistent;
				// consistent_random sends an empty key to a random
				// partition, which the engine reports as ErrNoDestination.
				if got := int(crc32.ChecksumIEEE(raw) % uint32(c[0])); got != c[1] {
					t.Errorf("%s: CRC32 partition of %d = %d; want %d", v.where(), c[0], got, c[1])
				}
				if len(raw) == 0 {
					if !errors.Is(rerr, ErrNoDestination) {
						t.Errorf("%s: kafka-librdkafka empty key error = %v; want ErrNoDestination", v.where(), rerr)
					}
				} else if rerr != nil {
					t.Errorf("%s: kafka-librdkafka Point: %v", v.where(), rerr)
				} else if got := layoutA(t, rdk, c[0]).Shard(rp); got != c[1] {
					t.Errorf("%s: librdkafka partition of %d = %d; want %d", v.where(), c[0], got, c[1])
				}
				parts++
			}
		}
		checked++
	})
	t.Logf("%s: %d vectors checked, %d partition numbers", file, checked, parts)
}

var reKetamaPool = regexp.MustCompile(`Server pool used by the project test: (.*?)\.?$`)

// ketamaPool parses the server pool named in the file's algorithm text:
// "host:port weight,host:port weight,...".
func ketamaPool(t *testing.T, algorithm string) []KetamaServer {
	t.Helper()
	m := reKetamaPool.FindStringSubmatch(algorithm)
	if m == nil {
		t.Fatal("ketama vectors: algorithm names no server pool")
	}
	var pool []KetamaServer
	for _, s := range strings.Split(m[1], ",") {
		var host string
		var port, weight int
		addr, w, ok := strings.Cut(strings.TrimSpace(s), " ")
		h, p, ok2 := strings.Cut(addr, ":")
		if !ok || !ok2 {
			t.Fatalf("ketama pool entry %q", s)
		}
		host = h
		var err error
		if port, err = strconv.Atoi(p); err != nil {
			t.Fatalf("ketama pool entry %q: %v", s, err)
		}
		if weight, err = strconv.Atoi(w); err != nil {
			t.Fatalf("ketama pool entry %q: %v", s, err)
		}
		pool = append(pool, KetamaServer{Host: host, Port: port, Weight: weight})
	}
	return pool
}

func checkKetamaVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	pool := ketamaPool(t, f.Algorithm)
	if len(pool) != 8 {
		t.Fatalf("ketama pool has %d servers; want the test's 8", len(pool))
	}
	lib, err := NewKetamaLayout(pool, false)
	if err != nil {
		t.Fatal(err)
	}
	spy, err := NewKetamaLayout(pool, true)
	if err != nil {
		t.Fatal(err)
	}
	e := Ketama{}
	checked := 0
	eachA(t, f, func(v vecA) {
		v.wantKind("server_host")
		if enc := v.str("input_encoding"); enc != "raw key bytes (ASCII)" {
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		key := []shardkey.Value{shardkey.TextValue(v.str("input"))}
		h, err := e.Hash(key)
		if err != nil {
			t.Fatal(err)
		}
		if v.has("key_hash_md5_u32") {
			if want := v.int64("key_hash_md5_u32"); h != UnsignedHash(uint64(want)) {
				t.Errorf("%s: Hash = %v; want %d", v.where(), h, want)
			}
		}
		p, _ := e.Point(key)
		s, point := lib.Locate(uint32(p))
		if got, want := lib.Server(s).Host, v.str("output"); got != want {
			t.Errorf("%s: server %s; want %s", v.where(), got, want)
		}
		if lib.Shard(p) != s {
			t.Errorf("%s: Shard disagrees with Locate", v.where())
		}
		if v.has("continuum_point") {
			if want := v.int64("continuum_point"); int64(point) != want {
				t.Errorf("%s: continuum point %d; want %d", v.where(), point, want)
			}
		}
		if got, want := spy.Server(spy.Shard(p)).Host, v.str("server_spymemcached_compatible"); got != want {
			t.Errorf("%s: spy server %s; want %s", v.where(), got, want)
		}
		checked++
	})
	t.Logf("%s: %d vectors checked (libmemcached and spymemcached servers)", file, checked)
}
