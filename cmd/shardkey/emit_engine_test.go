package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEmitEngineMismatch: what --emit writes places keys by its system's
// function (Citus: worker_hash in uniform int32 intervals; Vitess: each
// table's vindex), so advise scores under that system's engine. An
// --engine of another system is a usage error naming both flags:
// MongoDB's hashed shard key, and PostgreSQL's own PARTITION BY HASH
// (hash_combine64 of the extended hashes, mod n) too, place a key
// elsewhere than Citus does. The system's engine, with options or as a
// vitess-* vindex, is accepted.
func TestEmitEngineMismatch(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--engine", "mongodb", "--emit", "citus"}, 2},
		{[]string{"--engine", "postgres", "--emit", "citus"}, 2},
		{[]string{"--engine", "generic", "--emit", "vschema"}, 2},
		{[]string{"--engine", "citus", "--emit", "vschema"}, 2},
		{[]string{"--engine", "generic", "--emit", "mongodb"}, 2},
		{[]string{"--engine", "vitess", "--emit", "cockroachdb"}, 2},
		{[]string{"--engine", "citus(shard_count=32)", "--emit", "citus"}, 0},
		{[]string{"--engine", "vitess-xxhash", "--emit", "vschema"}, 0},
		{[]string{"--engine", "mongodb", "--emit", "mongodb"}, 0},
		{[]string{"--engine", "cockroachdb", "--emit", "cockroachdb"}, 0},
	} {
		args := append([]string{"advise", "orders", "--sweep", "", "--bootstrap", "0", "--format", "json"}, c.args...)
		code, _, errs := runCmd(t, "", args...)
		if code != c.code {
			t.Errorf("%v: exit %d; want %d\n%s", c.args, code, c.code, errs)
			continue
		}
		if c.code == 2 && (!strings.Contains(errs, "--emit "+c.args[3]) || !strings.Contains(errs, "--engine "+c.args[1])) {
			t.Errorf("%v: %q; want both flags named", c.args, errs)
		}
	}
}

// TestEmitScoresEmittedEngine: advise --emit citus without --engine
// scores under Citus, says so, and its figures for the design it emits
// are those score --engine citus gives that design; a VSchema read with
// -k puts the keys under Vitess's vindexes, which the Citus DDL would not
// place them by: a usage error.
func TestEmitScoresEmittedEngine(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "orders", "--sweep", "", "--bootstrap", "0", "--format", "json", "--emit", "citus")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Engine      string `json:"engine"`
		Recommended string `json:"recommended"`
		Candidates  []struct {
			Score struct {
				Key       string    `json:"key"`
				ShardWork []float64 `json:"shard_work"`
			} `json:"score"`
		} `json:"candidates"`
		Config struct {
			Key string `json:"key"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	if adv.Engine != "citus" || !strings.Contains(errs, "warning: --emit citus: no --engine given, so the keys are scored with --engine citus") {
		t.Errorf("engine %q, stderr %q; want citus, said", adv.Engine, errs)
	}
	if !strings.Contains(out, "no --engine given, so the keys are scored with --engine citus") {
		t.Errorf("the JSON document does not say which engine scored the keys")
	}
	sc := adv.Candidates[0].Score
	code, out, errs = runCmd(t, "", "score", "--workload", "../../scenario/builtin/orders.yaml", "--engine", "citus", "-k", sc.Key, "--format", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var sr struct {
		Candidates []struct {
			ShardWork []float64 `json:"shard_work"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Candidates) != 1 {
		t.Fatalf("score json: %v", err)
	}
	if len(sr.Candidates[0].ShardWork) != len(sc.ShardWork) {
		t.Fatalf("score --engine citus: %d shards; advise %d", len(sr.Candidates[0].ShardWork), len(sc.ShardWork))
	}
	for i, w := range sr.Candidates[0].ShardWork {
		if !near(w, sc.ShardWork[i], 1e-9*(1+w)) {
			t.Errorf("shard %d: score --engine citus %v, advise --emit citus %v", i, w, sc.ShardWork[i])
		}
	}

	vs := writeFile(t, "vs.json", mixedVSchema)
	users := writeFile(t, "users.csv", "user_id\n1\n2\n5\n6\n")
	accounts := writeFile(t, "accounts.csv", "login\nTEST\nBést\nO'Brien\nhello\n")
	code, _, errs = runCmd(t, "", "advise", "-k", "@"+vs, "--rows", "users="+users, "--rows", "accounts="+accounts, "--emit", "citus", "--bootstrap", "0", "--sweep", "")
	if code != 2 || !strings.Contains(errs, "--emit citus") || !strings.Contains(errs, "VSchema") {
		t.Errorf("-k @vschema --emit citus: exit %d, %q; want a usage error naming --emit and the VSchema", code, errs)
	}
}
