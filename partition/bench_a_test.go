package partition

import (
	"crypto/md5"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"

	"github.com/shardkey/shardkey"
)

// primitiveA returns the bare hash each engine of engines_a builds on,
// applied to already serialised key bytes, to compare placement against.
func primitiveA(spec string) func(b []byte) uint64 {
	switch spec {
	case "redis":
		return func(b []byte) uint64 { return uint64(crc16XModem(b)) }
	case "cassandra":
		return func(b []byte) uint64 { return murmur3H1(b, true) }
	case "kafka":
		return func(b []byte) uint64 { return uint64(KafkaMurmur2(b)) }
	case "kafka-librdkafka":
		return func(b []byte) uint64 { return uint64(crc32.ChecksumIEEE(b)) }
	default: // mongodb, ketama: MD5
		return func(b []byte) uint64 { s := md5.Sum(b); return binary.LittleEndian.Uint64(s[:]) }
	}
}

// serialisedA returns the bytes spec hashes for an Int64 key v and a Text
// key s (MongoDB's with its seed and type header), the primitive's input.
func serialisedA(spec string, v int64, s string) (i64, text []byte) {
	switch spec {
	case "redis", "ketama", "ketama:variant=spy":
		return strconv.AppendInt(nil, v, 10), []byte(s)
	case "mongodb":
		hdr := func(t uint32) []byte { return binary.LittleEndian.AppendUint32(make([]byte, 4), t) }
		return binary.LittleEndian.AppendUint64(hdr(mongoNumber), uint64(v)),
			appendBSONString(hdr(mongoString), s)
	}
	return binary.BigEndian.AppendUint64(nil, uint64(v)), []byte(s)
}

// BenchmarkPlaceA measures placement (Point + Layout.Shard on 16 shards)
// for Int64 and Text keys per engine, the Int64 fast path, and the bare
// primitive hash on the same keys already serialised. Keys cycle through
// 1024 values (int64 1000000+i, text "user_<i>") so no run hashes one
// constant. Placement should stay within 2x of the primitive; values/s is
// per core.
func BenchmarkPlaceA(b *testing.B) {
	const keys = 1024
	ints := make([]shardkey.Value, keys)
	texts := make([]shardkey.Value, keys)
	for i := range ints {
		ints[i] = shardkey.IntValue(1000000 + int64(i))
		texts[i] = shardkey.TextValue("user_" + strconv.Itoa(i))
	}
	for _, spec := range specsA {
		e := engineA(b, spec)
		l := layoutA(b, e, 16)
		prim := primitiveA(spec)
		var rawInts, rawTexts [keys][]byte
		for i := range rawInts {
			rawInts[i], rawTexts[i] = serialisedA(spec, ints[i].Int, texts[i].Str)
		}
		b.Run(spec, func(b *testing.B) {
			rate := func(b *testing.B) {
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
			}
			sink := 0
			place := func(vals []shardkey.Value) func(b *testing.B) {
				return func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						p, err := e.Point(vals[i%keys : i%keys+1])
						if err != nil {
							b.Fatal(err)
						}
						sink += l.Shard(p)
					}
					rate(b)
				}
			}
			primitive := func(raw *[keys][]byte) func(b *testing.B) {
				return func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						sink += int(prim(raw[i%keys]) & 1)
					}
					rate(b)
				}
			}
			b.Run("int64", place(ints))
			b.Run("int64-fast", func(b *testing.B) {
				ip := e.(Int64Pointer)
				for i := 0; b.Loop(); i++ {
					sink += l.Shard(ip.PointInt64(1000000 + int64(i%keys)))
				}
				rate(b)
			})
			b.Run("text", place(texts))
			b.Run("primitive-int64", primitive(&rawInts))
			b.Run("primitive-text", primitive(&rawTexts))
			_ = sink
		})
	}
}
