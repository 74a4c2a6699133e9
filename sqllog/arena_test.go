package sqllog

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/shardkey/shardkey"
)

// TestTextArena: a string from the arena keeps its bytes when the
// caller's buffer is reused, shares a chunk with its neighbours, and a
// text longer than arenaMax is a string of its own.
func TestTextArena(t *testing.T) {
	var made [][2]uintptr
	testHookArenaChunk = func(start *byte, size int) {
		p := uintptr(unsafe.Pointer(start))
		made = append(made, [2]uintptr{p, p + uintptr(size)})
	}
	defer func() { testHookArenaChunk = nil }()
	var a textArena
	buf := make([]byte, 0, 64)
	var got []string
	total := 0
	for i := range 20000 {
		buf = fmt.Appendf(buf[:0], "SELECT * FROM t WHERE id = %d", i)
		total += len(buf)
		got = append(got, a.string(buf))
	}
	for i, s := range got {
		if want := fmt.Sprintf("SELECT * FROM t WHERE id = %d", i); s != want {
			t.Fatalf("string %d = %q; want %q", i, s, want)
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		in := false
		for _, c := range made {
			in = in || p >= c[0] && p+uintptr(len(s)) <= c[1]
		}
		if !in {
			t.Fatalf("string %d is in none of the arena's chunks", i)
		}
	}
	// 20,000 strings of 27 to 31 bytes: ceil(total / 256 kB) chunks, one
	// more at most for the ends left unused.
	if want := (total + arenaChunk - 1) / arenaChunk; len(made) < want || len(made) > want+1 {
		t.Errorf("%d bytes of text took %d chunks; want %d or %d", total, len(made), want, want+1)
	}
	long := strings.Repeat("x", arenaMax+1)
	before := a.b.Len()
	if s := a.string([]byte(long)); s != long || a.b.Len() != before {
		t.Errorf("a text of %d bytes went into the chunk (%d -> %d bytes used)", len(long), before, a.b.Len())
	}
	if s := a.string(nil); s != "" {
		t.Errorf("empty text: %q", s)
	}
}

// TestArenaNotHeld: what the reader keeps while it reads (prepared
// statements' bodies, the parse cache's keys and raw templates, the
// excerpts of statements that do not parse) holds no chunk of the
// statements' text: once the log is read, the chunks still held are the
// one being filled and those of the last batches, whose memory the
// pipeline's buffers recycle (bounded whatever the log's length: here
// about 3 of the 18). Without the copies (strings.Clone) where those are
// kept, each PREPARE below (its name, a map key, and its body) held its
// chunk alive: all 18.
func TestArenaNotHeld(t *testing.T) {
	const heldMax = 4
	var made, freed atomic.Int64
	testHookArenaChunk = func(start *byte, _ int) {
		made.Add(1)
		runtime.AddCleanup(start, func(*atomic.Int64) { freed.Add(1) }, &freed)
	}
	defer func() { testHookArenaChunk = nil }()
	var live int64 = -1
	testHookDrained = func() {
		for range 50 {
			runtime.GC()
			if made.Load()-freed.Load() <= heldMax {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		live = made.Load() - freed.Load()
	}
	defer func() { testHookDrained = nil }()
	var b strings.Builder
	for i := range 60000 {
		s := 100 + i%50
		fmt.Fprintf(&b, "2024-03-01 10:00:%02d.%03d UTC [%d] app@db LOG:  statement: ", i/1000%60, i%1000, s)
		switch i % 1000 {
		case 0:
			fmt.Fprintf(&b, "PREPARE q%d (bigint) AS SELECT * FROM users WHERE id = $1\n", i)
		case 1:
			fmt.Fprintf(&b, "SET application_name = 'worker %d'\n", i)
		case 2:
			fmt.Fprintf(&b, "SELEC broken_%d FROM\n", i)
		default:
			fmt.Fprintf(&b, "SELECT name, email, created_at FROM users WHERE id = %d AND tenant = %d\n", i, i%7)
		}
	}
	w := &shardkey.Workload{}
	if err := Read(context.Background(), w, strings.NewReader(b.String()), "test.log", Options{}); err != nil {
		t.Fatal(err)
	}
	if made.Load() < 15 {
		t.Fatalf("the log's text took %d chunks; the test needs at least 15", made.Load())
	}
	if live < 0 || live > heldMax {
		t.Errorf("after reading, %d of the %d chunks of statement text are still held; want at most %d", live, made.Load(), heldMax)
	}
}

// BenchmarkStatementText: a statement's text made a string of its own
// (string(b), the readers before textArena: "alloc") against copied into
// the arena ("arena"), for statements of a TPC-C client's lengths, the
// strings kept as a batch keeps them (512 at a time) so that the
// collector sees what a reader leaves it. Run with -benchmem: allocs/op
// is the point (1 against 1 per 2,000 statements); ns/op quiet, 2 cores:
// 99 against 78 (at load 11: 249 against 142).
func BenchmarkStatementText(b *testing.B) {
	stmts := make([][]byte, 512)
	for i := range stmts {
		stmts[i] = fmt.Appendf(nil, "UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, s_order_cnt = s_order_cnt + 1 WHERE s_i_id = %d AND s_w_id = %d", i%100, i%10, 1000+i*37, i%10)
	}
	batch := make([]string, 512)
	b.Run("alloc", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			batch[i%512] = string(stmts[i%512])
		}
	})
	b.Run("arena", func(b *testing.B) {
		b.ReportAllocs()
		var a textArena
		for i := range b.N {
			batch[i%512] = a.string(stmts[i%512])
		}
	})
}
