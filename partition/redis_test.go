package partition

import (
	"math"
	"strconv"
	"testing"

	"github.com/shardkey/shardkey"
)

// slotRanges returns the contiguous slot ranges of l as [first, last, master].
func slotRanges(l *RedisLayout) [][3]int {
	var r [][3]int
	for s := 0; s < RedisSlots; s++ {
		o := int(l.owner[s])
		if len(r) > 0 && r[len(r)-1][2] == o {
			r[len(r)-1][1] = s
			continue
		}
		r = append(r, [3]int{s, s, o})
	}
	return r
}

func TestRedis_LayoutAsRedisCli(t *testing.T) {
	// The assignments redis-cli --cluster create prints ("Master[0] ->
	// Slots 0 - 5460" ...), as in the cluster tutorial.
	for _, c := range []struct {
		n    int
		want [][3]int
	}{
		{1, [][3]int{{0, 16383, 0}}},
		{3, [][3]int{{0, 5460, 0}, {5461, 10922, 1}, {10923, 16383, 2}}},
		{4, [][3]int{{0, 4095, 0}, {4096, 8191, 1}, {8192, 12287, 2}, {12288, 16383, 3}}},
		{6, [][3]int{{0, 2730, 0}, {2731, 5460, 1}, {5461, 8191, 2}, {8192, 10922, 3}, {10923, 13652, 4}, {13653, 16383, 5}}},
	} {
		l := mustLayout(t, Redis{}, c.n).(*RedisLayout)
		got := slotRanges(l)
		if len(got) != len(c.want) {
			t.Errorf("Layout(%d) = %v; want %v", c.n, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Layout(%d) = %v; want %v", c.n, got, c.want)
				break
			}
		}
	}
	for _, n := range []int{2, 5, 7, 100, 1000, 16383, 16384} {
		l := mustLayout(t, Redis{}, n).(*RedisLayout)
		if r := slotRanges(l); len(r) != n || r[len(r)-1][2] != n-1 {
			t.Errorf("Layout(%d): %d ranges; want one per master in order", n, len(r))
		}
	}
}

func TestRedis_Grow(t *testing.T) {
	for n := 3; n <= 12; n++ {
		old := mustLayout(t, Redis{}, n).(*RedisLayout)
		gl, err := Redis{}.Grow(old, n+1)
		if err != nil {
			t.Fatal(err)
		}
		g := gl.(*RedisLayout)
		moved := 0
		for s := 0; s < RedisSlots; s++ {
			if g.owner[s] != old.owner[s] {
				moved++
				if int(g.owner[s]) != n {
					t.Fatalf("%d->%d: slot %d moved from %d to %d, not to the new master", n, n+1, s, old.owner[s], g.owner[s])
				}
			}
		}
		// The new master gets (int)(16384/(n+1)) slots plus the rounding
		// remainder the balance loop hands it.
		expected := RedisSlots / (n + 1)
		if moved < expected || moved > expected+n {
			t.Errorf("%d->%d: %d slots moved; want %d..%d", n, n+1, moved, expected, expected+n)
		}
		if frac := float64(moved) / RedisSlots; math.Abs(frac-1/float64(n+1)) > 0.001 {
			t.Errorf("%d->%d: moved fraction %.4f; want ~1/%d", n, n+1, frac, n+1)
		}
		for i := 0; i <= n; i++ {
			if c := g.SlotCount(i); c < expected || c > expected+n {
				t.Errorf("%d->%d: master %d has %d slots; want about %d", n, n+1, i, c, expected)
			}
		}
	}
	// 3 -> 4 exactly: each old master gives its lowest 1365 or 1366 slots.
	g, _ := Redis{}.Grow(mustLayout(t, Redis{}, 3), 4)
	want := [][3]int{{0, 1364, 3}, {1365, 5460, 0}, {5461, 6826, 3}, {6827, 10922, 1}, {10923, 12287, 3}, {12288, 16383, 2}}
	got := slotRanges(g.(*RedisLayout))
	if len(got) != len(want) {
		t.Fatalf("3->4 ranges %v; want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("3->4 ranges %v; want %v", got, want)
		}
	}
	// Growing by several masters at once balances them all.
	g, err := Redis{}.Grow(mustLayout(t, Redis{}, 3), 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if c := g.(*RedisLayout).SlotCount(i); c < 2730 || c > 2732 {
			t.Errorf("3->6: master %d has %d slots; want ~2730", i, c)
		}
	}
	if _, err := (Redis{}).Grow(mustLayout(t, Redis{}, 4), 3); err == nil {
		t.Error("Grow 4->3 succeeded; want an error")
	}
}

func BenchmarkRedisLayout(b *testing.B) {
	for n := 3; n <= 300; n *= 10 {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (Redis{}).Layout(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func checkRedisVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := Redis{}
	checked := 0
	eachVec(t, f, func(v vec) {
		var key shardkey.Value
		switch enc := v.str("input_encoding"); enc {
		case "utf8 string":
			key = shardkey.TextValue(v.str("input"))
		case "hex bytes (binary-safe key)":
			key = bytesValue(decodeHex(t, v.str("input")))
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
