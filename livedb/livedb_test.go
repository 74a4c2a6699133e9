package livedb

import (
	"context"
	"errors"
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
func (f *fakeSession) close()                             {}

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
		if shardkey.CatalogOf(w) == nil {
			t.Errorf("NoStatements %v: no catalog", o.NoStatements)
		}
	}
	check(Options{SampleRows: 100, Seed: 1}, 1, true)
	check(Options{SampleRows: 100, Seed: 1, NoStatements: true}, 0, false)
}
