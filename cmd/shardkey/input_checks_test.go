package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInputChecks: input the command cannot honour is refused up front
// with exit 2 (a usage error) and a message naming the flag, never
// silently ignored or taken as a default:
//   - --stats without --from: statistics of a live database, with none;
//   - --grow-to 0: growth to 0 nodes is no growth (must be more than
//     --nodes), not "the default";
//   - watch -k on a column of no table: refused as score refuses it,
//     not run window after window.
func TestInputChecks(t *testing.T) {
	pgbench := filepath.Join("testdata", "pgbench", "pgbench-tpcb-s4.log")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--stats", "db:sample=10%"}, "--stats db:sample=10%: only with --from"},
		{[]string{"advise", "--log", pgbench, "--stats", "sample"}, "--stats sample: only with --from"},
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--slots", "8", "--nodes", "2", "--grow-to", "0"}, "--grow-to 0: must be more than --nodes (2)"},
		{[]string{"score", "--log", pgbench, "-k", "hash(aid)", "--grow-to", "0"}, "--grow-to and --row-bytes need --slots and --nodes"},
		{[]string{"watch", "--log", pgbench, "-k", "hash(nosuch)"}, `-k: design hash(nosuch) places no table of the first window with statements`},
	} {
		code, out, errs := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
		if c.args[0] == "watch" && strings.Contains(out, "UTC") {
			t.Errorf("%v: printed windows before refusing:\n%s", c.args, out)
		}
	}
}
