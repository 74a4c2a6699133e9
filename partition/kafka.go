package partition

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/shardkey/shardkey"
)

// Kafka is the Java client's default partitioner for keyed records
// (apache/kafka clients/src/main/java/org/apache/kafka/common/utils/Utils.java
// murmur2 and toPositive, clients/.../producer/internals/BuiltInPartitioner.java
// partitionForKey; Kafka Streams uses the same):
//
//	partition = toPositive(murmur2(serialised key)) % partitions
//
// murmur2 is 32-bit MurmurHash2 with seed 0x9747b28c; toPositive(h) is
// h & 0x7fffffff, not Math.abs. Key bytes are what the standard serialisers
// produce: Text UTF-8 (StringSerializer), Int16/Int32/Int64 2/4/8-byte
// big-endian (Short/Integer/LongSerializer), Float32/Float64 IEEE big-endian
// (Float/DoubleSerializer), Bytes raw (ByteArraySerializer), UUID its
// canonical string (UUIDSerializer), Uint64 as LongSerializer of its bits,
// Timestamp as LongSerializer of epoch milliseconds (shardkey's choice: there
// is no standard serialiser for instants). A record key is one serialised
// value, so compound keys are rejected; a NULL key is not hashed (sticky
// partitioning) and has no destination.
//
// Hash is the signed int32 murmur2; Point is toPositive of it and the layout
// is modulo. Adding partitions applies the same formula with the new count:
// about n/(n+1) of keys map elsewhere, but Kafka moves no existing records,
// so per-key order breaks across the change.
type Kafka struct{}

var (
	_ Engine       = Kafka{}
	_ Int64Pointer = Kafka{}
	_ Grower       = Kafka{}
)

func (Kafka) Name() string { return "kafka" }

func (Kafka) Hash(key []shardkey.Value) (Hash, error) {
	if s, ok := singleRaw(key); ok {
		return SignedHash(int64(int32(KafkaMurmur2(s)))), nil
	}
	var buf [64]byte
	b, err := kafkaKey(buf[:0], key, "kafka")
	if err != nil {
		return Hash{}, err
	}
	return SignedHash(int64(int32(KafkaMurmur2(b)))), nil
}

func (k Kafka) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return k.PointInt64(v), nil
	}
	if s, ok := singleRaw(key); ok {
		return uint64(KafkaMurmur2(s) & 0x7fffffff), nil
	}
	var buf [64]byte
	b, err := kafkaKey(buf[:0], key, "kafka")
	if err != nil {
		return 0, err
	}
	return uint64(KafkaMurmur2(b) & 0x7fffffff), nil
}

// PointInt64 is Point for one Int64 key (LongSerializer), without allocation.
func (Kafka) PointInt64(v int64) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return uint64(KafkaMurmur2(b[:]) & 0x7fffffff)
}

func (Kafka) Layout(n int) (Layout, error) { return NewModulo(n) }

// Grow returns the modulo layout on `to` partitions (see Kafka).
func (k Kafka) Grow(l Layout, to int) (Layout, error) {
	if to < l.Shards() {
		return nil, fmt.Errorf("kafka: partitions can only be added: %d to %d", l.Shards(), to)
	}
	return k.Layout(to)
}

// KafkaLibrdkafka is the default partitioner of librdkafka-based clients
// (confluent-kafka-go, -python, -dotnet, kcat): "consistent_random"
// (confluentinc/librdkafka src/rdkafka_msg.c
// rd_kafka_msg_partitioner_consistent_random):
//
//	partition = CRC32(key) % partitions
//
// with the IEEE CRC-32 of zlib. It differs from the Java client, which is
// why the same key can land on different partitions depending on the
// producer. Key bytes are serialised as for Kafka; an empty or NULL key is
// placed at random and has no destination. Hash and Point are the CRC32.
// Growth is as for Kafka.
type KafkaLibrdkafka struct{}

var (
	_ Engine       = KafkaLibrdkafka{}
	_ Int64Pointer = KafkaLibrdkafka{}
	_ Grower       = KafkaLibrdkafka{}
)

func (KafkaLibrdkafka) Name() string { return "kafka-librdkafka" }

func (k KafkaLibrdkafka) Hash(key []shardkey.Value) (Hash, error) {
	p, err := k.Point(key)
	return UnsignedHash(p), err
}

func (k KafkaLibrdkafka) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return k.PointInt64(v), nil
	}
	if s, ok := singleRaw(key); ok && s != "" {
		return uint64(crc32IEEE(s)), nil
	}
	var buf [64]byte
	b, err := kafkaKey(buf[:0], key, "kafka-librdkafka")
	if err != nil {
		return 0, err
	}
	if len(b) == 0 {
		return 0, fmt.Errorf("kafka-librdkafka: empty key is partitioned at random: %w", ErrNoDestination)
	}
	return uint64(crc32IEEE(b)), nil
}

// PointInt64 is Point for one Int64 key (LongSerializer), without allocation.
func (KafkaLibrdkafka) PointInt64(v int64) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return uint64(crc32IEEE(b[:]))
}

// crc32IEEE is crc32.ChecksumIEEE computed a byte at a time over the
// package's table: keys are short, and unlike ChecksumIEEE it keeps the
// key buffer on the stack and takes strings without a copy.
func crc32IEEE[K ~string | ~[]byte](b K) uint32 {
	c := ^uint32(0)
	for i := 0; i < len(b); i++ {
		c = crc32.IEEETable[byte(c)^b[i]] ^ c>>8
	}
	return ^c
}

func (KafkaLibrdkafka) Layout(n int) (Layout, error) { return NewModulo(n) }

// Grow returns the modulo layout on `to` partitions (see Kafka).
func (k KafkaLibrdkafka) Grow(l Layout, to int) (Layout, error) {
	if to < l.Shards() {
		return nil, fmt.Errorf("kafka-librdkafka: partitions can only be added: %d to %d", l.Shards(), to)
	}
	return k.Layout(to)
}

// kafkaKey appends the serialised bytes of the one-column key to b.
func kafkaKey(b []byte, key []shardkey.Value, system string) ([]byte, error) {
	if len(key) != 1 {
		return b, fmt.Errorf("%s: a record key is one serialised value, got %d columns", system, len(key))
	}
	return appendKafkaKey(b, key[0], system)
}

// appendKafkaKey appends the bytes the standard serialiser writes for v.
func appendKafkaKey(b []byte, v shardkey.Value, system string) ([]byte, error) {
	switch v.Type {
	case shardkey.Null:
		return b, fmt.Errorf("%s: NULL key is not hashed: %w", system, ErrNoDestination)
	case shardkey.Text, shardkey.Bytes, shardkey.ObjectID:
		return append(b, v.Str...), nil // an ObjectId by BytesSerializer
	case shardkey.Date:
		return binary.BigEndian.AppendUint64(b, uint64(v.Int)), nil // LongSerializer of ms
	case shardkey.Int16:
		return binary.BigEndian.AppendUint16(b, uint16(v.Int)), nil
	case shardkey.Int32:
		return binary.BigEndian.AppendUint32(b, uint32(v.Int)), nil
	case shardkey.Int64, shardkey.Uint64:
		return binary.BigEndian.AppendUint64(b, uint64(v.Int)), nil
	case shardkey.Timestamp:
		return binary.BigEndian.AppendUint64(b, uint64(floorDiv(v.Int, 1000))), nil
	case shardkey.Float32:
		return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v.Float))), nil
	case shardkey.Float64:
		return binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float)), nil
	case shardkey.UUID:
		return v.AppendText(b), nil
	}
	return b, fmt.Errorf("%s: cannot serialise a %s value", system, v.Type)
}

// KafkaMurmur2 returns Utils.murmur2(b) as uint32 bits (seed 0x9747b28c,
// tail bytes unsigned).
func KafkaMurmur2[K ~string | ~[]byte](b K) uint32 {
	const m, r = 0x5bd1e995, 24
	n := len(b)
	h := uint32(0x9747b28c) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(b[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
