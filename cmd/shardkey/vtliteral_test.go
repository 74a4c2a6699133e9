package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/key"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtenv"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
	"vitess.io/vitess/go/vt/vtgate/vindexes"
)

// vitessRouteValue returns the value vtgate routes `col = lit` by: the
// literal as Vitess's own parser reads it (sqlparser: 0x.. a HexNum,
// X'..' a HexVal, b'..' and 0b.. a BitNum) and its evalengine evaluates
// it (translateLiteral: a VARBINARY of the literal's bytes), which the
// planner hands to the vindex (makeEvalEngineExpr,
// operators/sharded_routing.go).
func vitessRouteValue(t *testing.T, lit string) sqltypes.Value {
	t.Helper()
	st, err := sqlparser.NewTestParser().Parse("select * from t where c = " + lit)
	if err != nil {
		t.Fatal(err)
	}
	env := vtenv.NewTestEnv()
	cmp := st.(*sqlparser.Select).Where.Expr.(*sqlparser.ComparisonExpr)
	e, err := evalengine.Translate(cmp.Right, &evalengine.Config{Collation: collations.SystemCollation.Collation, Environment: env})
	if err != nil {
		t.Fatal(err)
	}
	r, err := evalengine.EmptyExpressionEnv(env).Evaluate(e)
	if err != nil {
		t.Fatal(err)
	}
	return r.Value(collations.SystemCollation.Collation)
}

// vitessDest maps v by Vitess's vindex vtype: the shard of 8 even
// keyspace-id ranges, or -1 for DestinationNone (no shard).
func vitessDest(t *testing.T, vtype string, v sqltypes.Value) int {
	t.Helper()
	vx, err := vindexes.CreateVindex(vtype, vtype, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := vx.(vindexes.SingleColumn).Map(context.Background(), nil, []sqltypes.Value{v})
	if err != nil {
		t.Fatal(err)
	}
	switch d := d[0].(type) {
	case key.DestinationKeyspaceID:
		return int(d[0]) / 32
	case key.DestinationNone:
		return -1
	}
	t.Fatalf("%s(%v): destination %v", vtype, v, d[0])
	return 0
}

// TestBitAndHexNumLiteralRouting: a bit-value literal (b'101', 0b101)
// and a hex number (0x616263) route as vtgate routes them, by the
// VARBINARY Vitess's evalengine makes of them (NewLiteralBinaryFromBit,
// NewLiteralBinaryFromHexNum in go/vt/vtgate/evalengine/api_literal.go),
// like X'616263': the expected shard of each is Vitess's own parser,
// evalengine and vindex run on the statement's literal (vitessRouteValue,
// vitessDest). So b'101' is the byte 0x05, which the hash vindex cannot
// read as a number: no shard (shardkey had it as no condition on the
// key, a scatter); 0x35 is "5", hash's keyspace id of 5 (shardkey had
// 53); 0x616263 and b'0110...0011' are 'abc' under unicode_loose_md5, as
// X'616263' is, directly and through lookup(login).
func TestBitAndHexNumLiteralRouting(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(users, []byte("id,login\n1,x\n2,y\n3,abc\n4,w\n5,v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	explain := func(engine, design, sql string) routed {
		t.Helper()
		code, out, errs := runCmd(t, "", "explain", "--dialect", "mysql", "--rows", users, "--shards", "8", "--engine", engine, "-k", design, "--format", "json", sql)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sql, code, errs)
		}
		var rt routed
		if err := json.Unmarshal([]byte(out), &rt); err != nil {
			t.Fatal(err)
		}
		return rt
	}
	check := func(engine, design, vtype, col, lit string, viaRow int) {
		t.Helper()
		sql := "SELECT * FROM users WHERE " + col + " = " + lit
		want := vitessDest(t, vtype, vitessRouteValue(t, lit))
		if want >= 0 && viaRow > 0 {
			// Through the lookup: the shard of the row it names.
			want = vitessDest(t, "hash", sqltypes.NewInt64(int64(viaRow)))
		}
		rt := explain(engine, design, sql)
		switch {
		case want < 0 && (rt.Route != "none" || len(rt.Shards) != 0):
			t.Errorf("%s (%s): %+v; want no shard (Vitess: DestinationNone)", sql, design, rt)
		case want >= 0 && (rt.Route != "single" || len(rt.Shards) != 1 || rt.Shards[0] != want):
			t.Errorf("%s (%s): %+v; want shard %d", sql, design, rt, want)
		}
	}
	for _, lit := range []string{"b'101'", "0b101", "B'101'", "b'00110101'", "0x35", "0x5", "X'35'", "5"} {
		check("vitess", "users:hash(id)", "hash", "id", lit, 0)
	}
	for _, lit := range []string{"0x616263", "X'616263'", "b'011000010110001001100011'", "0b011000010110001001100011", "0x78"} {
		check("vitess-unicode-loose-md5", "users:hash(login)", "unicode_loose_md5", "login", lit, 0)
	}
	// Through lookup(login): 'abc' is row 3's login, 'x' (0x78) row 1's.
	check("vitess", "users:hash(id), lookup(login)", "unicode_loose_md5", "login", "0x616263", 3)
	check("vitess", "users:hash(id), lookup(login)", "unicode_loose_md5", "login", "b'011000010110001001100011'", 3)
	check("vitess", "users:hash(id), lookup(login)", "unicode_loose_md5", "login", "0x78", 1)
}
