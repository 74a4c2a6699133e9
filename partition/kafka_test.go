package partition

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestKafka_Grow(t *testing.T) {
	for _, e := range []Engine{Kafka{}, KafkaLibrdkafka{}} {
		for n := 2; n <= 8; n++ {
			old := mustLayout(t, e, n)
			g, err := e.(Grower).Grow(old, n+1)
			if err != nil {
				t.Fatal(err)
			}
			const keys = 200000
			moved := 0
			for k := int64(0); k < keys; k++ {
				p := e.(Int64Pointer).PointInt64(k)
				if old.Shard(p) != g.Shard(p) {
					moved++
				}
			}
			// h mod n == h mod (n+1) for n of every n(n+1) hashes.
			want := float64(n) / float64(n+1)
			if frac := float64(moved) / keys; math.Abs(frac-want) > 0.01 {
				t.Errorf("%s %d->%d: moved %.4f; want %.4f", e.Name(), n, n+1, frac, want)
			}
		}
	}
}

func checkKafkaVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	java, rdk := Kafka{}, KafkaLibrdkafka{}
	checked, parts := 0, 0
	eachVec(t, f, func(v vec) {
		v.wantKind("murmur2_int32")
		var key []shardkey.Value
		switch enc := v.str("input_encoding"); enc {
		case "StringSerializer (UTF-8 bytes)":
			key = []shardkey.Value{shardkey.TextValue(v.str("input"))}
		case "hex bytes (serialized key)":
			raw := decodeHex(t, v.str("input"))
			key = []shardkey.Value{bytesValue(raw)}
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
				if got := mustLayout(t, java, c[0]).Shard(p); got != c[1] {
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
				} else if got := mustLayout(t, rdk, c[0]).Shard(rp); got != c[1] {
					t.Errorf("%s: librdkafka partition of %d = %d; want %d", v.where(), c[0], got, c[1])
				}
				parts++
			}
		}
		checked++
	})
	t.Logf("%s: %d vectors checked, %d partition numbers", file, checked, parts)
}
