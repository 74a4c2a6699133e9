package partition

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"strconv"
	"testing"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/crypto/blake2b"

	"github.com/shardkey/shardkey"
)

// benchPrimitive is the bare hash an engine is built on, applied to a key
// the engine has already serialised (b, and the same bytes as s): the
// floor that placement is measured against. It excludes what placement
// adds: building the key's bytes (decimal text, BSON, CQL), the hash's
// mapping to a point, and Layout.Shard.
type benchPrimitive func(b []byte, s string) uint64

// benchCase says how spec serialises an Int64 key v and a Text key s for
// its primitive, and which primitive it runs on each (text nil: as int).
type benchCase struct {
	spec      string
	serialise func(v int64, s string) (i64, text []byte)
	int, text benchPrimitive
}

func decimalSer(v int64, s string) ([]byte, []byte) { return strconv.AppendInt(nil, v, 10), []byte(s) }
func bigEndianSer(v int64, s string) ([]byte, []byte) {
	return binary.BigEndian.AppendUint64(nil, uint64(v)), []byte(s)
}
func littleEndianSer(v int64, s string) ([]byte, []byte) {
	return binary.LittleEndian.AppendUint64(nil, uint64(v)), []byte(s)
}

func md5Prim(b []byte, _ string) uint64    { s := md5.Sum(b); return binary.BigEndian.Uint64(s[:]) }
func xxhashPrim(_ []byte, s string) uint64 { return xxhash.Sum64String(s) }

func benchCases() []benchCase {
	blake, err := blake2b.New(8, nil)
	if err != nil {
		panic(err)
	}
	var sum [8]byte
	return []benchCase{
		{"generic", littleEndianSer, xxhashPrim, nil},
		{"blake2b", decimalSer, func(b []byte, _ string) uint64 {
			blake.Reset()
			blake.Write(b)
			return binary.BigEndian.Uint64(blake.Sum(sum[:0]))
		}, nil},
		{"jump", littleEndianSer,
			func(b []byte, _ string) uint64 { return uint64(JumpHash(binary.LittleEndian.Uint64(b), 16)) },
			func(_ []byte, s string) uint64 { return uint64(JumpHash(xxhash.Sum64String(s), 16)) }},
		{"ring", littleEndianSer, xxhashPrim, nil},
		{"redis", decimalSer, func(_ []byte, s string) uint64 { return uint64(crc16XModem(s)) }, nil},
		{"cassandra", bigEndianSer, func(_ []byte, s string) uint64 { return murmur3H1(s, true) }, nil},
		{"mongodb", func(v int64, s string) ([]byte, []byte) {
			hdr := func(t uint32) []byte { return binary.LittleEndian.AppendUint32(make([]byte, 4), t) }
			return binary.LittleEndian.AppendUint64(hdr(mongoNumber), uint64(v)), appendBSONString(hdr(mongoString), s)
		}, md5Prim, nil},
		{"kafka", bigEndianSer, func(_ []byte, s string) uint64 { return uint64(KafkaMurmur2(s)) }, nil},
		{"kafka-librdkafka", bigEndianSer, func(b []byte, _ string) uint64 { return uint64(crc32.ChecksumIEEE(b)) }, nil},
		{"ketama", decimalSer, md5Prim, nil},
		{"postgres", func(v int64, s string) ([]byte, []byte) {
			return binary.LittleEndian.AppendUint32(nil, pgFoldInt8(v)), []byte(s)
		},
			func(b []byte, _ string) uint64 {
				return pgHashUint32Ext(binary.LittleEndian.Uint32(b), pgHashPartitionSeed)
			},
			func(_ []byte, s string) uint64 { return pgHashBytesExt(s, pgHashPartitionSeed) }},
		{"citus", func(v int64, s string) ([]byte, []byte) {
			return binary.LittleEndian.AppendUint32(nil, pgFoldInt8(v)), []byte(s)
		},
			func(b []byte, _ string) uint64 { return uint64(pgHashUint32(binary.LittleEndian.Uint32(b))) },
			func(_ []byte, s string) uint64 { return uint64(pgHashBytes(s)) }},
		{"elasticsearch", decimalSer, func(_ []byte, s string) uint64 { return uint64(ESMurmur3(s)) }, nil},
		{"yugabyte", bigEndianSer, func(b []byte, _ string) uint64 { return ybHash64(b, 97) }, nil},
		{"vitess", bigEndianSer, func(b []byte, _ string) uint64 { return vtDESPoint(binary.BigEndian.Uint64(b)) }, nil},
		{"vitess-xxhash", decimalSer, xxhashPrim, nil},
		{"vitess-binary-md5", decimalSer, md5Prim, nil},
		// The unicode_loose vindexes' primitive leaves out the collation
		// key, which costs most of their time.
		{"vitess-unicode-loose-md5", decimalSer, md5Prim, nil},
		{"vitess-unicode-loose-xxhash", decimalSer, xxhashPrim, nil},
		{"vitess-numeric", bigEndianSer, func(b []byte, _ string) uint64 { return binary.BigEndian.Uint64(b) }, nil},
		{"vitess-reverse-bits", bigEndianSer,
			func(b []byte, _ string) uint64 { return bits.Reverse64(binary.BigEndian.Uint64(b)) }, nil},
		{"vitess-multicol", bigEndianSer, func(b []byte, _ string) uint64 { return vtDESPoint(binary.BigEndian.Uint64(b)) }, nil},
		{"cockroachdb", func(v int64, s string) ([]byte, []byte) {
			return crdbAppendVarint(nil, v), []byte(s)
		}, func(b []byte, _ string) uint64 { m := md5.Sum(b); return uint64(crdbFNV32(m[:])) }, nil},
	}
}

// TestBenchCasesCoverEveryEngine keeps BenchmarkPlace in step with the
// registry.
func TestBenchCasesCoverEveryEngine(t *testing.T) {
	have := map[string]bool{}
	for _, c := range benchCases() {
		have[baseName(c.spec)] = true
	}
	for _, name := range Names() {
		if !have[name] {
			t.Errorf("engine %s has no BenchmarkPlace case", name)
		}
	}
}

// BenchmarkPlace measures placement, Point then Layout.Shard on 16 shards,
// per engine and key type, next to the engine's bare primitive hash on the
// same keys already serialised (benchPrimitive):
//
//	BenchmarkPlace/<engine>/int64            Point of a one-column Int64 key
//	BenchmarkPlace/<engine>/int64-fast       PointInt64, the path sim routes Int64 keys through
//	BenchmarkPlace/<engine>/text             Point of a one-column Text key
//	BenchmarkPlace/<engine>/primitive-int64  the primitive on the serialised Int64 keys
//	BenchmarkPlace/<engine>/primitive-text   the primitive on the serialised Text keys
//
// Keys cycle through 1024 values (int64 1000000+i, text "user_<i*7919>",
// 6 to 12 bytes) so that no run hashes one constant. values/s is per core;
// placement should stay within 2x of the primitive. Engines that cannot
// place a Text key (the Vitess hash and numeric vindexes) have no text
// benchmarks.
func BenchmarkPlace(b *testing.B) {
	const keys = 1024
	ints := make([]shardkey.Value, keys)
	texts := make([]shardkey.Value, keys)
	for i := range ints {
		ints[i] = shardkey.IntValue(1000000 + int64(i))
		texts[i] = shardkey.TextValue("user_" + strconv.Itoa(i*7919))
	}
	rate := func(b *testing.B) { b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s") }
	for _, c := range benchCases() {
		e := mustLookup(b, c.spec)
		l, err := e.Layout(16)
		if err != nil {
			b.Fatal(err)
		}
		var rawInts, rawTexts [keys][]byte
		var strInts, strTexts [keys]string
		for i := range rawInts {
			rawInts[i], rawTexts[i] = c.serialise(ints[i].Int, texts[i].Str)
			strInts[i], strTexts[i] = string(rawInts[i]), string(rawTexts[i])
		}
		primText := c.text
		if primText == nil {
			primText = c.int
		}
		b.Run(c.spec, func(b *testing.B) {
			sink := 0
			place := func(vals []shardkey.Value) func(b *testing.B) {
				return func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						p, _ := e.Point(vals[i%keys : i%keys+1])
						sink += l.Shard(p)
					}
					rate(b)
				}
			}
			primitive := func(prim benchPrimitive, raw *[keys][]byte, str *[keys]string) func(b *testing.B) {
				return func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						sink += int(prim(raw[i%keys], str[i%keys]) & 1)
					}
					rate(b)
				}
			}
			b.Run("int64", place(ints))
			if ip, ok := e.(Int64Pointer); ok {
				b.Run("int64-fast", func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						sink += l.Shard(ip.PointInt64(1000000 + int64(i%keys)))
					}
					rate(b)
				})
			}
			b.Run("primitive-int64", primitive(c.int, &rawInts, &strInts))
			if _, err := e.Point(texts[:1]); err == nil {
				b.Run("text", place(texts))
				b.Run("primitive-text", primitive(primText, &rawTexts, &strTexts))
			}
			_ = sink
		})
	}
}

// BenchmarkTextKey: seed 000's key text (blake2b's input) of an id and of
// (id, month), by textKey and, as the baseline, by joining
// Value.AppendText's forms (strconv.AppendInt).
func BenchmarkTextKey(b *testing.B) {
	const keys = 1024
	var one, two [keys][]shardkey.Value
	for i := range keys {
		id := shardkey.IntValue(100001 + int64(i)*3917)
		one[i] = []shardkey.Value{id}
		two[i] = []shardkey.Value{id, shardkey.TextValue(fmt.Sprintf("2024-%02d", i%12+1))}
	}
	var buf [128]byte
	for _, c := range []struct {
		name string
		keys *[keys][]shardkey.Value
	}{{"id", &one}, {"id_month", &two}} {
		b.Run(c.name+"/textKey", func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				n += len(textKey(buf[:0], c.keys[i%keys], '|'))
			}
			sinkInt = n
		})
		b.Run(c.name+"/AppendText", func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				out := buf[:0]
				for j, v := range c.keys[i%keys] {
					if j > 0 {
						out = append(out, '|')
					}
					out = v.AppendText(out)
				}
				n += len(out)
			}
			sinkInt = n
		})
	}
}

// sinkInt keeps benchmark results live.
var sinkInt int
