package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestRootPerTableNames: go-tpc's TPC-C names the warehouse column per
// table (w_id, d_w_id, c_w_id, ...). sqllog/testdata/pg-tpcc-names.log
// has six transactions, each reading warehouse by w_id = v, updating
// district by d_w_id = v (and d_id) and reading customer by c_w_id = v
// (and c_d_id, c_id), for v = 1, 1, 1, 2, 2, 3: the three columns carry
// one value in all six transactions, so the advisor's entity classes
// hold them as one entity (findEntities: value equality in at least 5
// transactions, 90% of them equal). Under the design keying each table
// by its own column the root checklist names that entity, by the name
// the others extend (w_id), over the three tables: 3 distinct values;
// each transaction's three statements name its v, so w_id = 1 is named
// by 3 x 3 = 9 of the 18 requests on the tables, 50%.
func TestRootPerTableNames(t *testing.T) {
	log := "../../sqllog/testdata/pg-tpcc-names.log"
	key := "warehouse:hash(w_id); district:hash(d_w_id); customer:hash(c_w_id)"
	code, out, errs := runCmd(t, "", "advise", "--log", log, "-k", key, "--format", "json")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var adv struct {
		Candidates []struct {
			Key  string `json:"key"`
			Root *struct {
				Column      string   `json:"column"`
				Tables      []string `json:"tables"`
				Columns     []string `json:"columns"`
				Basis       string   `json:"basis"`
				Cardinality int      `json:"cardinality"`
				TopValues   []struct {
					Value string  `json:"value"`
					Share float64 `json:"share"`
				} `json:"top_values"`
			} `json:"root"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(adv.Candidates) != 1 || adv.Candidates[0].Root == nil {
		t.Fatalf("no root checklist for %s in\n%s", key, out)
	}
	rs := adv.Candidates[0].Root
	if rs.Column != "w_id" || strings.Join(rs.Tables, ",") != "warehouse,district,customer" || strings.Join(rs.Columns, ",") != "w_id,d_w_id,c_w_id" || rs.Basis != "traffic" {
		t.Errorf("root %s over %v (columns %v), basis %s; want w_id over warehouse, district, customer (w_id, d_w_id, c_w_id), traffic", rs.Column, rs.Tables, rs.Columns, rs.Basis)
	}
	if rs.Cardinality != 3 || len(rs.TopValues) == 0 || rs.TopValues[0].Value != "1" || math.Abs(rs.TopValues[0].Share-0.5) > 1e-9 {
		t.Errorf("cardinality %d, top values %+v; want 3, w_id = 1 at 9/18 = 50%%", rs.Cardinality, rs.TopValues)
	}
	// users.id and orders.id are each their table's own id (joined to
	// the user only by the name id): two entities, no one root, though
	// posts.user_id and follows.followee_id hold users' ids.
	code, out, errs = runCmd(t, "", "advise", "--log", "../../sqllog/testdata/pg-stderr.log", "-k", "follows:hash(followee_id); orders:hash(id); posts:hash(user_id); users:hash(id)")
	if code != 0 {
		t.Fatalf("advise pg-stderr.log: exit %d: %s", code, errs)
	}
	if strings.Contains(out, "root entity") {
		t.Errorf("a root entity over two tables' own ids in\n%s", out)
	}
	code, out, errs = runCmd(t, "", "advise", "--log", log, "-k", key)
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	want := "root entity w_id over warehouse, district (d_w_id), customer (c_w_id) (traffic-based: no row sample): 3 distinct values; the busiest entity, w_id = 1, is named by 50% of the requests on its tables"
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, want) {
		t.Errorf("no %q in\n%s", want, out)
	}
}
