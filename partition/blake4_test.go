package partition

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/shardkey/shardkey"
)

// refPoint is seed 000's point of text by golang.org/x/crypto/blake2b
// alone: the big-endian number of its 8-byte digest.
func refPoint(t *testing.T, text string) uint64 {
	h, err := blake2b.New(8, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte(text))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// TestBlake4Texts: the four-lane compression gives x/crypto's digest for
// texts of every length a block holds (0 to 128 bytes, each length in each
// lane, lanes of different lengths side by side), and Point4 falls back
// for longer ones (129, 200 bytes); and the Python numbers of
// TestBlake2bPointer for keys of seed 000.
func TestBlake4Texts(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('!' + r.IntN(90)))
		}
		return b.String()
	}
	st := newBlakeState()
	for n := 0; n <= 200; n++ {
		var keys [4][]shardkey.Value
		var want [4]uint64
		for l := range 4 {
			// Lane l holds a text of length n, the others other lengths.
			m := n
			if l != n%4 {
				m = r.IntN(129)
			}
			s := text(m)
			keys[l] = []shardkey.Value{shardkey.TextValue(s)}
			want[l] = refPoint(t, s)
		}
		var got [4]uint64
		if err := st.Point4(&keys, &got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("length %d: Point4 %x, x/crypto %x", n, got, want)
		}
	}
	iv, tv := shardkey.IntValue, shardkey.TextValue
	keys := [4][]shardkey.Value{{iv(528059), tv("2024-07")}, {tv("2023-05")}, {iv(4100238)}, {iv(-1)}}
	want := [4]uint64{9934446630411188701, 5984993316154514371, 14999202172856932304, 2258336317711253734}
	var got [4]uint64
	if err := st.Point4(&keys, &got); err != nil || got != want {
		t.Fatalf("seed keys: Point4 %d (%v), Python %d", got, err, want)
	}
}

// TestBlake4Int64: PointInt64x4 equals x/crypto's digest of the decimal
// text for ascending runs (the fill's order: the text by a step from the
// last), jumps, negatives and the extremes.
func TestBlake4Int64(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 64))
	st := newBlakeState()
	v := int64(-20)
	for i := 0; i < 20000; i++ {
		var vs [4]int64
		for l := range vs {
			switch r.IntN(8) {
			case 0:
				v = r.Int64() - math.MaxInt64/2
			case 1:
				v = []int64{math.MinInt64, math.MaxInt64, 0, -1, 99, 100, 999, 1000}[r.IntN(8)]
			default:
				v += int64(r.IntN(120))
			}
			vs[l] = v
		}
		var got, want [4]uint64
		st.PointInt64x4(&vs, &got)
		for l, x := range vs {
			want[l] = refPoint(t, strconv.FormatInt(x, 10))
		}
		if got != want {
			t.Fatalf("values %d: PointInt64x4 %x, x/crypto %x", vs, got, want)
		}
	}
}

// BenchmarkBlake2bFill: a fill's hashing of ascending integers, one at a
// time (PointInt64) beside four at a time (PointInt64x4).
func BenchmarkBlake2bFill(b *testing.B) {
	b.Run("one", func(b *testing.B) {
		st := newBlakeState()
		var sink uint64
		for i := 0; i < b.N; i++ {
			sink += st.PointInt64(int64(100001 + i))
		}
		_ = sink
	})
	b.Run("four", func(b *testing.B) {
		st := newBlakeState()
		var out [4]uint64
		var vs [4]int64
		for i := 0; i < b.N; i += 4 {
			for l := range vs {
				vs[l] = int64(100001 + i + l)
			}
			st.PointInt64x4(&vs, &out)
		}
	})
}

// TestBlake4Generated: the checked-in assembly is what its generator
// writes (go generate in partition), so the two cannot drift apart.
func TestBlake4Generated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator (go run)")
	}
	out := filepath.Join(t.TempDir(), "blake4.s")
	cmd := exec.Command("go", "run", "./internal/blake4gen", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/blake4gen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("blake4_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("blake4_amd64.s differs from internal/blake4gen's output: run go generate ./partition")
	}
}
