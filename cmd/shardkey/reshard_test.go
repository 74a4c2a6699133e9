package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAdvise_Current checks --current against a case worked by hand.
// Eight rows (id, tenant): (0,1) (1,0) (2,0) (3,2) (4,0) (5,1) (6,3) (7,0).
// In use: range(id, bounds=[4]): ids 0-3 on shard 0, 4-7 on shard 1.
// Candidate: range(tenant, bounds=[1]): tenant 0 (ids 1, 2, 4, 7) on
// shard 0, the others (ids 0, 3, 5, 6) on shard 1. So ids 0 and 3 go
// 0 -> 1, ids 4 and 7 go 1 -> 0: 4 of 8 rows cross; each shard sends 2,
// receives 2 and holds 4 after. At 100 bytes a row, every row is
// rewritten (800 B), 400 B cross, each target shard holds 400 B, and at
// 100 B/s the largest takes 4 s to copy. MongoDB's storage need:
// (800 B x 2) / 2 shards = 800 B per shard.
func TestAdvise_Current(t *testing.T) {
	rows := writeFile(t, "rt.csv", "id,tenant\n0,1\n1,0\n2,0\n3,2\n4,0\n5,1\n6,3\n7,0\n")
	args := []string{"advise", "--rows", rows, "-k", "range(tenant, bounds=[1])", "--current", "range(id, bounds=[4])",
		"--shards", "2", "--row-bytes", "100", "--copy-rate", "100B/s", "--bootstrap", "0", "--sweep", "", "--engine", "mongodb"}
	code, out, errs := runCmd(t, "", append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Reshard []struct {
			To            string
			Rows          float64
			RowsCrossing  float64 `json:"rows_crossing"`
			Bytes         float64
			BytesCrossing float64   `json:"bytes_crossing"`
			SourceRows    []float64 `json:"source_rows"`
			SourceOut     []float64 `json:"source_out"`
			TargetRows    []float64 `json:"target_rows"`
			TargetIn      []float64 `json:"target_in"`
			TargetBytes   []float64 `json:"target_bytes"`
			CopySeconds   *float64  `json:"copy_seconds"`
			RowsBasis     string    `json:"rows_basis"`
			RowsShare     float64   `json:"rows_share"`
			CrossingShare float64   `json:"crossing_share"`
			MinSeconds    float64   `json:"min_seconds"`
			Steps         []string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Reshard) != 1 || r.Reshard[0].To != "range(tenant, bounds=[1])" {
		t.Fatalf("reshard: %+v; want one plan to range(tenant, bounds=[1])", r.Reshard)
	}
	p := r.Reshard[0]
	eq := func(name string, got []float64, want ...float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s = %v; want %v", name, got, want)
			return
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s = %v; want %v", name, got, want)
				return
			}
		}
	}
	// The --rows file is a sample of rt, whose size is not known: the
	// rows are the sample's (rows_basis "sample"), their shares hold
	// (all 8 of 8 rows rewritten: 1; 4 of 8 crossing: 0.5), the bytes
	// and copy time of the real table are unknown (null). MongoDB's
	// reshardCollection lasts at least 300 s (its minimum duration).
	eq("rows, crossing, rows share, crossing share, min seconds", []float64{p.Rows, p.RowsCrossing, p.RowsShare, p.CrossingShare, p.MinSeconds}, 8, 4, 1, 0.5, 300)
	if p.RowsBasis != "sample" || p.Bytes != 0 || p.BytesCrossing != 0 || p.TargetBytes != nil || p.CopySeconds != nil {
		t.Errorf("rows basis %q, bytes %v %v, target bytes %v, copy seconds %v; want sample and bytes and copy time null", p.RowsBasis, p.Bytes, p.BytesCrossing, p.TargetBytes, p.CopySeconds)
	}
	eq("source_rows", p.SourceRows, 4, 4)
	eq("source_out", p.SourceOut, 2, 2)
	eq("target_in", p.TargetIn, 2, 2)
	eq("target_rows", p.TargetRows, 4, 4)
	if !strings.Contains(strings.Join(p.Steps, "\n"), `reshardCollection: "DB.rt", key: {tenant: 1}`) || !strings.Contains(strings.Join(p.Steps, "\n"), "unknown bytes (the tables' sizes are not known: a row sample's) per shard") {
		t.Errorf("MongoDB steps: %q", p.Steps)
	}
	// The table output has the section; bad flags are usage errors.
	code, out, _ = runCmd(t, "", args...)
	if code != 0 || !strings.Contains(out, "Resharding from range(id, bounds=[4])") || !strings.Contains(out, "100% of the rows rewritten, 50% of those to another shard (in the row sample: 8 rows rewritten, 4 of them moving)") ||
		!strings.Contains(out, "reshardCollection takes at least 5.0 min however little it copies (reshardingMinimumOperationDurationMillis, default 300,000 ms)") || strings.Contains(out, "takes 4 s") {
		t.Errorf("table output: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--row-bytes", "10"}, "give --current DESIGN"},
		{[]string{"--current", "hash(id)", "--copy-rate", "fast"}, "--copy-rate \"fast\""},
		{[]string{"--current", "hash(id)", "--copy-rate", "5 parsecs"}, "unknown unit"},
		{[]string{"--current", "hash(nosuch)"}, "--current: key \"hash(nosuch)\""},
	} {
		code, _, errs := runCmd(t, "", append([]string{"advise", "--rows", rows, "-k", "hash(id)", "--bootstrap", "0"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("advise %v: exit %d %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestAdviseCurrentBaseline: --current DESIGN is the design the user runs
// today, compared with as a --from Citus database's is. On the social
// scenario (seed 001: every post read by its user), hash(user_id) is the
// recommendation itself: keep it. range(created_at) puts every insert on
// the last range (rejected as monotonic): change it, to hash(user_id).
func TestAdviseCurrentBaseline(t *testing.T) {
	for _, c := range []struct {
		current string
		keep    bool
	}{{"hash(user_id)", true}, {"range(created_at)", false}} {
		code, out, errs := runCmd(t, "", "advise", "social", "--current", c.current, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.current, code, errs)
		}
		var r struct {
			InUse       string   `json:"in_use"`
			KeepInUse   bool     `json:"keep_in_use"`
			Recommended string   `json:"recommended"`
			Summary     []string `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.InUse != c.current || r.KeepInUse != c.keep || r.Recommended != "hash(user_id)" {
			t.Errorf("--current %s: in_use %q keep %v recommended %q; want keep %v, hash(user_id)", c.current, r.InUse, r.KeepInUse, r.Recommended, c.keep)
		}
		want := "Change the design in use, " + c.current
		if c.keep {
			want = "Keep the design in use, " + c.current
		}
		said := false
		for _, l := range r.Summary {
			said = said || strings.HasPrefix(l, want)
		}
		if !said {
			t.Errorf("--current %s: summary %q lacks %q", c.current, r.Summary, want)
		}
	}
}

// unsampledLog is a PostgreSQL stderr log (log_statement=all) of two
// tables, users and orders, and no row sample: a workload read from a log.
// Under --current 'users:hash(id); orders:hash(user_id)' a candidate that
// keys orders by its own id re-keys orders and leaves users as it is.
func unsampledLog(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	line := func(sec int, stmt string) {
		fmt.Fprintf(&b, "2026-11-30 23:05:%02d.000 UTC [100] app@db LOG:  statement: %s\n", sec, stmt)
	}
	for i := range 40 {
		line(i%60, fmt.Sprintf("SELECT * FROM users WHERE id = %d", i%13))
		line(i%60, fmt.Sprintf("SELECT * FROM orders WHERE id = %d", 1000+i))
		line(i%60, fmt.Sprintf("INSERT INTO orders (id, user_id, total) VALUES (%d, %d, 5)", 2000+i, i%13))
	}
	return writeFile(t, "unsampled.log", b.String())
}

// TestReshardUnsampledUnknown: a re-keyed table without a row sample (a
// workload read from a log) moves an unknown number of rows, not 0. The
// reshard plan lists orders as rewritten (hash(user_id) -> hash(id)) and
// users as not; rows, bytes, the per-shard figures, the largest target,
// the copy time and the row size are null in JSON, "unknown" in text and
// Markdown, which name the table without a sample and the flags that give
// one, and never say that nothing moves.
func TestReshardUnsampledUnknown(t *testing.T) {
	args := []string{"advise", "--log", unsampledLog(t), "--current", "users:hash(id); orders:hash(user_id)",
		"-k", "users:hash(id); orders:hash(id)", "--shards", "4", "--bootstrap", "0", "--sweep", ""}
	doc := adviseDoc(t, args[1:]...)
	plans, _ := doc["reshard"].([]any)
	var plan map[string]any
	for _, p := range plans {
		if p := p.(map[string]any); p["to"] == "users:hash(id); orders:hash(id)" {
			plan = p
		}
	}
	if plan == nil {
		t.Fatalf("no reshard plan to users:hash(id); orders:hash(id) in %v", plans)
	}
	wantNull(t, "reshard", plan, "rows", "rows_crossing", "source_rows", "source_out", "target_rows", "target_in",
		"bytes", "bytes_crossing", "source_bytes_out", "target_bytes", "target_bytes_in", "largest_target", "copy_seconds", "row_bytes")
	rewritten := map[string]bool{}
	for _, tm := range plan["tables"].([]any) {
		tm := tm.(map[string]any)
		rewritten[tm["table"].(string)] = tm["rewritten"].(bool)
		if tm["table"] == "orders" {
			wantNull(t, "reshard.tables[orders]", tm, "rows", "rows_crossing")
		}
	}
	if !rewritten["orders"] || rewritten["users"] {
		t.Errorf("rewritten tables %v; want orders only", rewritten)
	}
	if u, _ := plan["unsampled_tables"].([]any); len(u) != 1 || u[0] != "orders" {
		t.Errorf("unsampled_tables = %v; want [orders]", plan["unsampled_tables"])
	}
	for _, format := range []string{"table", "markdown"} {
		code, out, errs := runCmd(t, "", append(args, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		for _, want := range []string{
			"row size unknown",
			"-> users:hash(id); orders:hash(id): rows rewritten unknown, bytes unknown, copy time of the largest shard unknown (no row sample of orders: give --rows FILE or --from DSN)",
			"tables rewritten: orders (hash(user_id) -> hash(id))",
			"orders re-keyed without a row sample",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", format, want, out)
			}
		}
		for _, bad := range []string{"nothing to copy", "0 rows rewritten", "0 B", "takes 0 s"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q in\n%s", format, bad, out)
			}
		}
	}
	// The engines' steps quote the copy's size or time: unknown too
	// (generic's backfill, Citus's window, MongoDB's storage per shard).
	for engine, want := range map[string]string{"generic": "(unknown\n      bytes (no row sample) of rows, an unknown time (no row sample)",
		"citus": "plan a window (an unknown time (no row sample)", "mongodb": "unknown bytes (no row sample) per shard"} {
		code, out, errs := runCmd(t, "", append(args, "--engine", engine)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", engine, code, errs)
		}
		if !strings.Contains(out, want) || strings.Contains(out, "0 B") || strings.Contains(out, " 0.0 s") {
			t.Errorf("%s: want %q and no 0 B or 0.0 s in\n%s", engine, want, out)
		}
	}
}

// TestReshardWarningsEverywhere: a reshard plan's warning reaches
// standard error (naming the plan) and every output format. From
// users:hash(id); orders:hash(user_id) to users:hash(id); orders:hash(id)
// re-keys orders, and the log has no row sample of it: the plan warns
// that orders is re-keyed without a row sample. HTML has no reshard
// section (--current is refused with it).
func TestReshardWarningsEverywhere(t *testing.T) {
	const from, to = "users:hash(id); orders:hash(user_id)", "users:hash(id); orders:hash(id)"
	const wn = "orders re-keyed without a row sample"
	args := []string{"advise", "--log", unsampledLog(t), "--current", from, "-k", to,
		"--shards", "4", "--bootstrap", "0", "--sweep", ""}
	for _, format := range []string{"table", "json", "markdown"} {
		code, out, errs := runCmd(t, "", append(args, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		if want := "warning: reshard from " + from + " to " + to + ": " + wn; !strings.Contains(errs, want) {
			t.Errorf("%s: standard error lacks %q:\n%s", format, want, errs)
		}
		if !strings.Contains(out, wn) {
			t.Errorf("%s: output lacks %q:\n%s", format, wn, out)
		}
		if format == "table" && !strings.Contains(out[strings.LastIndex(out, "\nwarnings:\n"):], "reshard from "+from+" to "+to+": "+wn) {
			t.Errorf("table: closing warnings block lacks the plan's warning:\n%s", out)
		}
	}
}

// TestAdviseEmitWarningsInDocuments: --emit's warnings (Citus cannot
// express a range key, so the emitted configuration hash-distributes
// it) go to standard error and, since the Markdown and HTML documents
// have no configuration section, into their warnings.
func TestAdviseEmitWarningsInDocuments(t *testing.T) {
	rows := writeFile(t, "rt.csv", "id,tenant\n0,1\n1,0\n2,0\n3,2\n4,0\n5,1\n6,3\n7,0\n")
	const wn = "--emit citus: Citus distributes by hash (create_distributed_table), not by ranges"
	for _, format := range []string{"table", "json", "markdown", "html"} {
		code, out, errs := runCmd(t, "", "advise", "--rows", rows, "-k", "range(id, bounds=[4])", "--shards", "2",
			"--bootstrap", "0", "--sweep", "", "--emit", "citus", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		if !strings.Contains(errs, "warning: "+wn) || !strings.Contains(out, wn) {
			t.Errorf("%s: want %q on standard error and in the output; stderr:\n%s\noutput:\n%s", format, wn, errs, out)
		}
	}
}

// TestExplainInputWarnings: explain with inputs puts the inputs'
// warnings on standard error and in its output, as score does. The log's
// second statement does not parse ("SELEC"): one statement left out.
func TestExplainInputWarnings(t *testing.T) {
	log := writeFile(t, "x.log", "2026-11-30 23:05:01.000 UTC [100] app@db LOG:  statement: SELECT * FROM users WHERE id = 3\n"+
		"2026-11-30 23:05:02.000 UTC [100] app@db LOG:  statement: SELEC garbage FROM\n")
	const wn = "x.log: 1 statement could not be parsed and was left out"
	for _, format := range []string{"table", "json"} {
		code, out, errs := runCmd(t, "", "explain", "--log", log, "-k", "hash(id)", "--format", format, "SELECT * FROM users WHERE id = 3")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		if !strings.Contains(errs, "warning: ") || !strings.Contains(errs, wn) || !strings.Contains(out, wn) {
			t.Errorf("%s: want %q on standard error and in the output; stderr:\n%s\noutput:\n%s", format, wn, errs, out)
		}
	}
}
