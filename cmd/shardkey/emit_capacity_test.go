package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestEmitWarnsOverCapacity: a configuration written for the shard count
// advised for, on which the recommended design leaves shards over the
// capacity even with its fixes, says so and names the count the advice
// found to fit (fresh-clone review: advise workspace --engine mongodb
// --emit mongodb pinned a 64-shard layout where 9 shards stay over and 75
// fit, without a word). The count and the shards over are the advice's
// own capacity_check; that they are right is TestShardsNeededWorkspace's
// and the search's tests' business.
func TestEmitWarnsOverCapacity(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "workspace", "--engine", "mongodb", "--emit", "mongodb", "--bootstrap", "0", "--sweep", "", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Shards        int `json:"shards"`
		CapacityCheck struct {
			ShardsNeeded int `json:"shards_needed"`
			After        struct {
				OverCapacity int `json:"over_capacity"`
			} `json:"after"`
		} `json:"capacity_check"`
		Config struct {
			Warnings []string `json:"warnings"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	cp := adv.CapacityCheck
	if cp.After.OverCapacity == 0 || cp.ShardsNeeded <= adv.Shards {
		t.Fatalf("capacity check %+v on %d shards: want shards over after fixes and a count that fits above it", cp, adv.Shards)
	}
	want := fmt.Sprintf("--emit mongodb: this configures %d shards, on which %d stay over the capacity of 800 units/s with every proposed fix applied; %d shards bring every shard under it: re-run with --shards %d", adv.Shards, cp.After.OverCapacity, cp.ShardsNeeded, cp.ShardsNeeded)
	if !strings.Contains(errs, "warning: "+want) {
		t.Errorf("standard error lacks %q:\n%s", want, errs)
	}
	found := false
	for _, w := range adv.Config.Warnings {
		found = found || strings.Contains(w, want)
	}
	if !found {
		t.Errorf("JSON config.warnings %q lack %q", adv.Config.Warnings, want)
	}
}
