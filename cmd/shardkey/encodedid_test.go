package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestEncodedIDNotForText: a read by a column that is unique and grows
// with insert order is told to encode the shard in the id only when the
// column can be an id the system assigns (an integer here); an email the
// user supplies, unique and in insert order in this sample, cannot carry
// a shard (review: "encode the shard in the id" for an email).
func TestEncodedIDNotForText(t *testing.T) {
	var rows, queries strings.Builder
	rows.WriteString("order_id,customer_id,email\n")
	for i := range 2000 {
		fmt.Fprintf(&rows, "%d,%d,e%05d@example.com\n", 100000+i, i%200, i)
	}
	for i := range 900 {
		fmt.Fprintf(&queries, `{"table": "orders", "where": {"customer_id": %d}, "weight": 1}`+"\n", i%200)
	}
	for i := range 100 {
		fmt.Fprintf(&queries, `{"table": "orders", "name": "by email", "where": {"email": "e%05d@example.com"}, "weight": 1}`+"\n", i*7)
		fmt.Fprintf(&queries, `{"table": "orders", "name": "by id", "where": {"order_id": %d}, "weight": 1}`+"\n", 100000+i*7)
	}
	rf := writeFile(t, "orders.csv", rows.String())
	qf := writeFile(t, "q.jsonl", queries.String())
	code, out, errs := runCmd(t, "", "advise", "--rows", "orders="+rf, "--queries", qf, "-k", "orders:hash(customer_id)", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			Key   string `json:"key"`
			Fixes []struct {
				Kind, Target string
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var byID, byEmail string
	for _, c := range r.Candidates {
		if !strings.Contains(c.Key, "hash(customer_id)") {
			continue
		}
		for _, f := range c.Fixes {
			if f.Target == "by id" {
				byID = f.Kind
			}
			if f.Target == "by email" {
				byEmail = f.Kind
			}
		}
	}
	if byID != "shard-encoded-id" {
		t.Errorf("read by order_id: fix %q; want shard-encoded-id", byID)
	}
	if byEmail == "shard-encoded-id" || byEmail == "" {
		t.Errorf("read by email: fix %q; want a fix other than shard-encoded-id (a lookup or index)", byEmail)
	}
}
