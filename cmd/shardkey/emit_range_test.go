package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/key"
	"vitess.io/vitess/go/vt/vtgate/vindexes"

	"github.com/shardkey/shardkey/internal/loggen"
)

// tpccLog writes a small TPC-C log (10 warehouses), on which advise on
// 10 shards recommends range(w_id) and its co-located range keys, one
// warehouse a shard (on 8 shards ranges of whole warehouses cannot be
// even, and the advice proposes 10 or 5 shards: advisor/rangefit.go).
func tpccLog(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "tpcc.log")
	out, err := os.Create(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loggen.Write(out, loggen.Options{Format: "stderr", Bytes: 300 << 10, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return f
}

type emitAdvice struct {
	Recommended string `json:"recommended"`
	Candidates  []struct {
		Score struct {
			Key         string    `json:"key"`
			ShardWork   []float64 `json:"shard_work"`
			RangeBounds []struct {
				Table  string   `json:"table"`
				Bounds []string `json:"bounds"`
				Key    string   `json:"key"`
			} `json:"range_bounds"`
			KeyWithBounds string `json:"key_with_bounds"`
		} `json:"score"`
	} `json:"candidates"`
	Config struct {
		Key      string   `json:"key"`
		Text     string   `json:"text"`
		Notes    []string `json:"notes"`
		Warnings []string `json:"warnings"`
	} `json:"config"`
}

// TestAdviseEmitRangeAsScored: on a TPC-C log of 10 warehouses, advise on
// 10 shards recommends range keys on the warehouse id and states the boundaries it placed by; the
// key with them, given back with -k, scores the same shard work; --emit
// vschema writes the shards at those boundaries (names: each bound as a
// 16-hex-digit keyspace id, formatted here with %016x), and Vitess's
// numeric vindex with Vitess's key ranges sends each warehouse 1..10 to
// shard i = the number of bounds <= w_id, the range placement's closed
// form. --emit citus scores under Citus, which distributes new tables by
// hash only, so it recommends no range design; given that design with
// -k, it warns, in the file and on stderr, that Citus hash-distributes,
// with the hash design's figures.
func TestAdviseEmitRangeAsScored(t *testing.T) {
	log := tpccLog(t)
	code, out, errs := runCmd(t, "", "advise", "--log", log, "--shards", "10", "--bootstrap", "0", "--format", "json", "--emit", "vschema")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var a emitAdvice
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	sc := a.Candidates[0].Score
	if !strings.Contains(a.Recommended, "warehouse:range(w_id)") || len(sc.RangeBounds) == 0 || sc.KeyWithBounds == "" {
		t.Fatalf("recommended %q, bounds %+v, key with bounds %q: want a range design with its bounds", a.Recommended, sc.RangeBounds, sc.KeyWithBounds)
	}
	bounds := sc.RangeBounds[0].Bounds
	if len(bounds) != 9 {
		t.Fatalf("bounds %v: want 9 split points for 10 shards of 10 warehouses", bounds)
	}
	for _, rb := range sc.RangeBounds {
		if rb.Table == "warehouse" && rb.Key != "range(w_id, bounds=["+strings.Join(bounds, ", ")+"])" {
			t.Errorf("warehouse key %q; want range(w_id, bounds=[%s])", rb.Key, strings.Join(bounds, ", "))
		}
	}
	if a.Config.Key != sc.KeyWithBounds {
		t.Errorf("emitted %q; want the scored design with its bounds %q", a.Config.Key, sc.KeyWithBounds)
	}
	// Scored again with -k, the key with bounds places the same work.
	code, out, errs = runCmd(t, "", "score", "--log", log, "--shards", "10", "-k", sc.KeyWithBounds, "--format", "json")
	if code != 0 {
		t.Fatalf("score -k: exit %d: %s", code, errs)
	}
	var rescored struct {
		Candidates []struct {
			ShardWork []float64 `json:"shard_work"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &rescored); err != nil || len(rescored.Candidates) != 1 {
		t.Fatalf("score -k: %v, %d candidates", err, len(rescored.Candidates))
	}
	if !slices.EqualFunc(rescored.Candidates[0].ShardWork, sc.ShardWork, func(x, y float64) bool { return x-y < 1e-9*(1+y) && y-x < 1e-9*(1+y) }) {
		t.Errorf("score -k %s: shard work %v; advise scored %v", sc.KeyWithBounds, rescored.Candidates[0].ShardWork, sc.ShardWork)
	}
	// The shards, by hand from the bounds.
	var names []string
	prev := ""
	var ub []uint64
	for _, b := range bounds {
		u, err := strconv.ParseUint(b, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		ub = append(ub, u)
		cur := fmt.Sprintf("%016x", u)
		names = append(names, prev+"-"+cur)
		prev = cur
	}
	names = append(names, prev+"-")
	notes := strings.Join(a.Config.Notes, "\n")
	if !strings.Contains(notes, strings.Join(names, ", ")) {
		t.Fatalf("notes lack the shards %v:\n%s", names, notes)
	}
	if len(a.Config.Warnings) > 0 {
		t.Errorf("vschema warnings %q for a placement Vitess reproduces", a.Config.Warnings)
	}
	num, err := vindexes.CreateVindex("numeric", "numeric", nil)
	if err != nil {
		t.Fatal(err)
	}
	for v := uint64(1); v <= 10; v++ {
		ksid, err := num.(vindexes.Hashing).Hash(sqltypes.NewUint64(v))
		if err != nil {
			t.Fatal(err)
		}
		got := -1
		for i, n := range names {
			lo, hi, _ := strings.Cut(n, "-")
			kr, err := key.ParseKeyRangeParts(lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			if key.KeyRangeContains(kr, ksid) {
				got = i
			}
		}
		want := 0
		for _, b := range ub {
			if b <= v {
				want++
			}
		}
		if got != want {
			t.Errorf("w_id %d (keyspace id %s): Vitess shard %d; the range placement puts it on %d", v, hex.EncodeToString(ksid), got, want)
		}
	}
	// Citus cannot: --emit citus scores under --engine citus, where
	// create_distributed_table makes shards for hash distribution only,
	// so advise recommends no range design (and emits without a warning);
	// the range design given with -k is rejected and emitted with a
	// warning in the file and on stderr, with figures.
	code, out, errs = runCmd(t, "", "advise", "--log", log, "--shards", "10", "--bootstrap", "0", "--format", "json", "--emit", "citus")
	if code != 0 {
		t.Fatalf("--emit citus: exit %d: %s", code, errs)
	}
	a = emitAdvice{}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.Recommended, "range(") || len(a.Config.Warnings) > 0 || !strings.Contains(errs, "no --engine given, so the keys are scored with --engine citus") {
		t.Errorf("--emit citus: recommended %q, config warnings %q, stderr:\n%s\nwant a hash design scored under citus", a.Recommended, a.Config.Warnings, errs)
	}
	code, out, errs = runCmd(t, "", "advise", "--log", log, "--shards", "10", "--bootstrap", "0", "--format", "json", "--emit", "citus", "-k", sc.KeyWithBounds)
	if code != 0 {
		t.Fatalf("--emit citus -k: exit %d: %s", code, errs)
	}
	a = emitAdvice{}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: --emit citus: Citus distributes by hash", "warehouse:hash(w_id)", "--engine citus on 10 shards at busiest shard", "for the range placement"} {
		if !strings.Contains(errs, want) {
			t.Errorf("--emit citus -k: stderr lacks %q:\n%s", want, errs)
		}
	}
	hashWarned := false
	for _, wn := range a.Config.Warnings {
		hashWarned = hashWarned || strings.Contains(wn, "Citus distributes by hash")
	}
	if !strings.Contains(a.Config.Text, "-- WARNING: Citus distributes by hash") || !hashWarned {
		t.Errorf("--emit citus -k: warnings %q, file:\n%s\nwant a WARNING comment", a.Config.Warnings, a.Config.Text)
	}
}
