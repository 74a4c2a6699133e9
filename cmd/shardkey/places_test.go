package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// advise with slots over nodes says so in its header in every format
// ("64 slots over 4 nodes", not "64 shards"), and JSON carries nodes
// beside shards.
func TestAdviseSlotsOverNodesHeader(t *testing.T) {
	for _, format := range []string{"table", "markdown", "html", "json"} {
		code, out, errs := runCmd(t, "", "advise", "--slots", "64", "--nodes", "4", "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		if format == "json" {
			var adv struct{ Shards, Nodes int }
			if err := json.Unmarshal([]byte(out), &adv); err != nil {
				t.Fatal(err)
			}
			if adv.Shards != 64 || adv.Nodes != 4 {
				t.Errorf("json: shards %d nodes %d, want 64 and 4", adv.Shards, adv.Nodes)
			}
			continue
		}
		if !strings.Contains(out, "64 slots over 4 nodes") || strings.Contains(out, "64 shards, engine") || strings.Contains(out, "advice for 64 shards") {
			t.Errorf("%s: want the header to say 64 slots over 4 nodes:\n%.600s", format, out)
		}
	}
}
