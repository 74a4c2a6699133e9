package livedb

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
)

// fakeSession is a database of one table, accounts(aid int4), with ten rows
// and one statement in its statistics.
type fakeSession struct{ asked bool }

func (f *fakeSession) engine() string { return "fake 1" }

func (f *fakeSession) notes() []error { return nil }

func (f *fakeSession) catalog(context.Context) ([]*shardkey.TableInfo, []error, error) {
	return []*shardkey.TableInfo{{Name: "accounts", RowEstimate: 10, Columns: []*shardkey.ColumnInfo{{Name: "aid", DBType: "int4", Type: shardkey.Int32}}}}, nil, nil
}

func (f *fakeSession) stats(context.Context, *shardkey.TableInfo) error { return nil }

func (f *fakeSession) sample(_ context.Context, _ *shardkey.TableInfo, _ int, _ int64, row func(uint64, []shardkey.Value) error) (string, error) {
	for i := range 10 {
		if err := row(uint64(i), []shardkey.Value{{Type: shardkey.Int32, Int: int64(100 + i)}}); err != nil {
			return "", err
		}
	}
	return "every row", nil
}

func (f *fakeSession) statements(context.Context) ([]statement, float64, error) {
	f.asked = true
	return []statement{{Text: "SELECT abalance FROM accounts WHERE aid = $1", Calls: 600}}, 60, nil
}

func (f *fakeSession) exec(context.Context, string) error { return errors.New("read-only") }
func (f *fakeSession) measure(context.Context, *shardkey.TableInfo, []*shardkey.ColumnInfo, shardSpec) []error {
	return nil
}
func (f *fakeSession) close() {}

func TestRead_NoStatements(t *testing.T) {
	check := func(o Options, wantOps int, wantAsked bool) {
		t.Helper()
		s := &fakeSession{}
		w := &shardkey.Workload{}
		if err := read(context.Background(), s, w, "fake", o); err != nil {
			t.Fatal(err)
		}
		if got := len(w.Ops); got != wantOps {
			t.Errorf("NoStatements %v: %d operations; want %d", o.NoStatements, got, wantOps)
		}
		if s.asked != wantAsked {
			t.Errorf("NoStatements %v: statement statistics read = %v; want %v", o.NoStatements, s.asked, wantAsked)
		}
		if w.Table("accounts") == nil || w.Table("accounts").Rows != 10 {
			t.Errorf("NoStatements %v: the row sample is missing", o.NoStatements)
		}
		if w.Catalog == nil {
			t.Errorf("NoStatements %v: no catalog", o.NoStatements)
		}
	}
	check(Options{SampleRows: 100, Seed: 1}, 1, true)
	check(Options{SampleRows: 100, Seed: 1, NoStatements: true}, 0, false)
}

// The reservoir keeps the n rows of lowest priority, whatever the order
// they come in, and returns them in arrival order.
func TestReservoir(t *testing.T) {
	// Priorities 0..999 in a scrambled order (7 is prime to 1000); the
	// row's value is its priority.
	offer := func(order func(i int) int) []int64 {
		r := &reservoir{n: 10}
		for i := range 1000 {
			p := order(i)
			if err := r.offer(uint64(p), []shardkey.Value{{Type: shardkey.Int64, Int: int64(p)}}); err != nil {
				t.Fatal(err)
			}
		}
		var out []int64
		for _, row := range r.sorted() {
			out = append(out, row.vals[0].Int)
		}
		return out
	}
	fwd := offer(func(i int) int { return (i * 7) % 1000 })
	// Priority p arrives at i = p * 143 mod 1000 (7 * 143 = 1001): 0 at
	// 0, 7 at 1, 1 at 143, 8 at 144, 2 at 286, 9 at 287, 3 at 429, 4 at
	// 572, 5 at 715, 6 at 858.
	want := []int64{0, 7, 1, 8, 2, 9, 3, 4, 5, 6}
	if !slices.Equal(fwd, want) {
		t.Errorf("kept %v; want priorities 0..9 in arrival order %v", fwd, want)
	}
	rev := offer(func(i int) int { return 999 - i })
	if !slices.Equal(rev, []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}) {
		t.Errorf("reversed arrival: kept %v; want 9..0", rev)
	}
}

func TestSampleClauses(t *testing.T) {
	check := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got %q; want %q", got, want)
		}
	}
	c, _ := pgSampleClause(1000, 1000, 7)
	check(c, "") // small: every row
	c, _ = pgSampleClause(1e6, 100000, 7)
	check(c, " TABLESAMPLE pg_catalog.bernoulli (12.000000) REPEATABLE (7)") // 1.2 x 100,000 of 1,000,000
	c, d := pgSampleClause(2e7, 100000, -1)
	check(c, " TABLESAMPLE pg_catalog.system (0.600000) REPEATABLE (2147483647)")
	check(d, "TABLESAMPLE SYSTEM (0.6%) REPEATABLE (2147483647): whole pages, rows clustered by page")
	c, _ = mySampleWhere(-1, 100, 7)
	check(c, "") // no estimate: every row
	c, _ = mySampleWhere(1e6, 100000, 7)
	check(c, " WHERE RAND(7) < 0.120000000")
}
