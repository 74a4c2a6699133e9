package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdviseHashOnlyEngine: Redis Cluster places every key by its hash
// slot (CRC16 mod 16384, the cluster specification), Kafka a keyed record
// by murmur2 mod the partition count, and Citus's create_distributed_table
// makes shards only for a hash-distributed table (CreateCitusTable in
// citusdata/citus commands/create_distributed_table.c calls
// CreateHashDistributedTableShards for HASH_DISTRIBUTED alone): none can
// run a range key, so advise never recommends one and rejects every range
// candidate, saying why, with or without slots over nodes or engine
// options.
func TestAdviseHashOnlyEngine(t *testing.T) {
	for _, args := range [][]string{
		{"social", "--engine", "redis"},
		{"social", "--engine", "redis", "--slots", "16384", "--nodes", "4"},
		{"social", "--engine", "kafka"},
		{"social", "--engine", "citus"},
		{"social", "--engine", "citus(shard_count=32)"},
	} {
		code, out, errs := runCmd(t, "", append([]string{"advise", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("advise %v: exit %d: %s", args, code, errs)
		}
		var adv struct {
			Recommended string `json:"recommended"`
			Candidates  []struct {
				Key     string `json:"key"`
				Verdict string `json:"verdict"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(adv.Recommended, "range(") {
			t.Errorf("advise %v recommends %s", args, adv.Recommended)
		}
		ranges := 0
		for _, c := range adv.Candidates {
			if strings.Contains(c.Key, "range(") {
				ranges++
				if !strings.HasPrefix(c.Verdict, "rejected") || !strings.Contains(c.Verdict, "not available") {
					t.Errorf("advise %v: %s: verdict %q; want rejected, range partitioning not available", args, c.Key, c.Verdict)
				}
			}
		}
		if ranges == 0 {
			t.Errorf("advise %v: no range candidate to check in %s", args, out)
		}
	}
}

// TestAdviseTPCCCitusHash: TPC-C under --engine citus. Every transaction
// of TPC-C but a remote payment or a remote stock line stays in one
// warehouse, so the design Citus itself runs TPC-C with (its HammerDB
// benchmarks) hash-distributes every table by its warehouse id column and
// makes item, which no transaction writes, a reference table. Citus cannot
// create a range-distributed table's shards (see TestAdviseHashOnlyEngine),
// so the warehouse ranges that win under the generic engine are rejected
// and the warehouse hash is recommended.
func TestAdviseTPCCCitusHash(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--workload", "../../scenario/benchmarks/tpcc.yaml", "--engine", "citus", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Key     string `json:"key"`
			Verdict string `json:"verdict"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	if want := "hash(w_id); item:replicate"; adv.Recommended != want {
		t.Errorf("recommended %q; want %q", adv.Recommended, want)
	}
	ranges := 0
	for _, c := range adv.Candidates {
		if strings.Contains(c.Key, "range(") {
			ranges++
			if !strings.HasPrefix(c.Verdict, "rejected") || !strings.Contains(c.Verdict, "Citus") {
				t.Errorf("%s: verdict %q; want rejected because Citus cannot range-distribute", c.Key, c.Verdict)
			}
		}
	}
	if ranges == 0 {
		t.Errorf("no range candidate to check: %s", out)
	}
}

// TestScoreWatchHashOnlyEngine: score and watch run the designs they are
// given, but a range key under an engine that places keys only by hash
// (Citus: create_distributed_table makes shards only for hash
// distribution) is not a design that engine can be set up with, so both
// warn, giving the engine's reason, on standard error and in the
// document, as advise rejects it; a hash key gets no such warning.
func TestScoreWatchHashOnlyEngine(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&b, "2026-11-30 23:%02d:%02d UTC [100]: [%d-1] user=t,db=p,app=psql,client=127.0.0.1 6b.1 LOG:  duration: 0.5 ms  statement: SELECT name FROM users WHERE id = %d;\n", 5+i/2/60, i/2%60, i+1, i*7%100+1)
	}
	log := filepath.Join(t.TempDir(), "small.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const reason = "Citus's create_distributed_table makes shards only for hash distribution"
	for _, cmd := range [][]string{
		{"score", "--log", log, "--engine", "citus"},
		{"watch", "--log", log, "--engine", "citus", "--window", "30s"},
	} {
		formats := []string{"table", "json", "markdown"}
		if cmd[0] == "watch" {
			formats = []string{"table", "json", "html"}
		}
		for _, format := range formats {
			for _, key := range []string{"range(id)", "hash(id)"} {
				args := append(append([]string{}, cmd...), "--format", format, "-k", key)
				code, out, errs := runCmd(t, "", args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
				want := strings.HasPrefix(key, "range")
				if got := strings.Contains(errs, "cannot range-partition table users: "+reason); got != want {
					t.Errorf("%v: warning on standard error %v, want %v: %s", args, got, want, errs)
				}
				if got := strings.Contains(out, "cannot range-partition table users"); got != want {
					t.Errorf("%v: warning in the %s output %v, want %v", args, format, got, want)
				}
			}
		}
	}
}
