package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdvise_QuotedTableName: a table named "user-data" (a delimited
// identifier) gets the advice a plain name gets. orders is read by
// user_id 1,000 times a second and "user-data", its parent, by email 60
// times: hash(user_id) with "user-data" a reference table puts every
// request on one shard (the reads of orders by their key, those of the
// small parent on any shard), so it is recommended, written with the
// name quoted. Before the fix the candidate's text did not parse and was
// dropped without a word, leaving hash(email).
func TestAdvise_QuotedTableName(t *testing.T) {
	dir := t.TempDir()
	schema := `CREATE TABLE "user-data" (id int PRIMARY KEY, email text);
CREATE TABLE orders (id int PRIMARY KEY, user_id int REFERENCES "user-data"(id), total int);
`
	csv := "query,calls,rows\n" +
		"\"SELECT * FROM orders WHERE user_id = $1\",1000,0\n" +
		"\"SELECT * FROM \"\"user-data\"\" WHERE email = $1\",60,0\n" +
		"\"INSERT INTO orders (id, user_id, total) VALUES ($1, $2, $3)\",10,0\n"
	for name, text := range map[string]string{"sch.sql": schema, "p.csv": csv} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCmd(t, "", "advise", "--schema", filepath.Join(dir, "sch.sql"), "--log", filepath.Join(dir, "p.csv"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Recommended string   `json:"recommended"`
		Warnings    []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	if want := `hash(user_id); "user-data":replicate`; adv.Recommended != want {
		t.Errorf("recommended %q, want %q", adv.Recommended, want)
	}
	for _, w := range adv.Warnings {
		if strings.Contains(w, "not scored") {
			t.Errorf("warning %q", w)
		}
	}
}
