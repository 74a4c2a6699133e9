package partition

import (
	"crypto/md5"
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestCockroachDBEncoding(t *testing.T) {
	// encoding.EncodeVarintAscending boundaries.
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "\x88"}, {109, "\xf5"}, {110, "\xf6\x6e"}, {255, "\xf6\xff"}, {256, "\xf7\x01\x00"},
		{-1, "\x87\xff"}, {-255, "\x87\x01"}, {-256, "\x86\xff\x00"},
		{math.MaxInt64, "\xfd\x7f\xff\xff\xff\xff\xff\xff\xff"},
		{math.MinInt64, "\x80\x80\x00\x00\x00\x00\x00\x00\x00"},
	} {
		if got := string(crdbAppendVarint(nil, c.v)); got != c.want {
			t.Errorf("varint(%d) = %x, want %x", c.v, got, c.want)
		}
	}
	if got, _ := crdbAppendKey(nil, shardkey.TextValue("a\x00b")); string(got) != "\x12a\x00\xffb\x00\x01" {
		t.Errorf("string key %x", got)
	}
	// FNV-1 (not 1a) known answer: fnv32("a") = 0x050c5d7e.
	if got := crdbFNV32([]byte("a")); got != 0x050c5d7e {
		t.Errorf("fnv32(a) = %#x", got)
	}
	// Generation 3 is FNV-1 of md5's hex text of the key bytes.
	sum := md5.Sum([]byte("\x8a"))
	p, _ := mustLookup(t, "cockroachdb").Point([]shardkey.Value{shardkey.IntValue(2)})
	if want := uint64(crdbFNV32([]byte(hexLower(sum[:])))); p != want {
		t.Errorf("generation 3 point %d, want %d", p, want)
	}
	// Generation 1 sums per-column hashes.
	e1 := mustLookup(t, "cockroachdb:generation=1")
	p1, _ := e1.Point([]shardkey.Value{shardkey.IntValue(12), shardkey.TextValue("ab")})
	if want := uint64(crdbFNV32([]byte("12"))) + uint64(crdbFNV32([]byte("ab"))); p1 != want {
		t.Errorf("generation 1 point %d, want %d", p1, want)
	}
}

func hexLower(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
