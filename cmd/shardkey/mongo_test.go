package main

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// mongoHashedObjectID is MongoDB's hashed shard key value of an ObjectId,
// written here from the algorithm text of
// partition/testdata/vectors/mongodb_hashed.json and not from the engine:
// the first 8 bytes, little-endian, of MD5(seed 0 as int32 LE, canonical
// type 35 as int32 LE, the 12 ObjectId bytes).
func mongoHashedObjectID(oid []byte) int64 {
	b := binary.LittleEndian.AppendUint32(nil, 0)
	b = binary.LittleEndian.AppendUint32(b, 35)
	sum := md5.Sum(append(b, oid...))
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}

// mongoInitialChunk4 is the chunk of hash h among the 4 initial chunks of
// calculateHashedSplitPoints: split points -interval, 0, +interval with
// interval = (INT64_MAX / 4) * 2; the chunk is the number of split points
// <= h.
func mongoInitialChunk4(h int64) int {
	interval := (int64(math.MaxInt64) / 4) * 2
	c := 0
	for _, s := range []int64{-interval, 0, interval} {
		if s <= h {
			c++
		}
	}
	return c
}

// TestAdviseMongoExport is the acceptance test of issue 16: advise on a
// MongoDB-shaped workload (mongoexport JSONL: ObjectId _id, a user id, a
// created $date) places ObjectIds exactly as MongoDB's hashed sharding
// does, and flags a range key on ObjectId (and on the creation date) as
// monotonic. The expected per-shard row counts come from
// mongoHashedObjectID and mongoInitialChunk4 above, checked against the
// vectors file's ObjectId first.
func TestAdviseMongoExport(t *testing.T) {
	vec, _ := hex.DecodeString("5b2be413c06d924ab26ff9ca")
	if h := mongoHashedObjectID(vec); h != 2523394966799057167 {
		t.Fatalf("test's own hash of the vectors' ObjectId = %d; want 2523394966799057167 (mongodb_hashed.json)", h)
	}
	// 2,000 documents inserted 37 s apart: ObjectIds begin with their
	// creation second (big-endian), then a fixed process id and a counter,
	// as drivers make them.
	var rows strings.Builder
	want := make([]int, 4)
	for i := 0; i < 2000; i++ {
		sec := uint32(1700000000 + 37*i)
		oid := binary.BigEndian.AppendUint32(nil, sec)
		oid = append(oid, 0xc0, 0x6d, 0x92, 0x4a, 0xb2, byte(i>>16), byte(i>>8), byte(i))
		want[mongoInitialChunk4(mongoHashedObjectID(oid))]++
		fmt.Fprintf(&rows, `{"_id":{"$oid":"%x"},"user_id":{"$numberLong":"%d"},"created":{"$date":{"$numberLong":"%d"}},"status":"%s"}`+"\n",
			oid, 1+(i*7919)%300, int64(sec)*1000, []string{"new", "paid", "shipped"}[i%3])
	}
	rowsFile := writeFile(t, "orders.jsonl", rows.String())
	queries := writeFile(t, "queries.jsonl", `{"where": {"user_id": 17}, "weight": 50}
{"where": {"_id": {"$oid": "6553f100c06d924ab2000000"}}, "weight": 30}
{"where": {"created": {"gte": {"$date": "2023-11-15T00:00:00Z"}, "lt": {"$date": "2023-11-16T00:00:00Z"}}}, "weight": 5}
`)
	// A candidate of score, or the score of an advise candidate.
	type cand struct {
		Key        string  `json:"key"`
		ShardLoad  []int   `json:"shard_load"`
		Monotonic  bool    `json:"monotonic"`
		Monotonicy float64 `json:"monotonicity"`
		Score      *cand   `json:"score"`
	}
	run := func(args ...string) map[string]cand {
		t.Helper()
		code, out, errs := runCmd(t, "", append(args, "--rows", rowsFile, "--queries", queries, "--engine", "mongodb", "--shards", "4", "--format", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var r struct{ Candidates []cand }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		m := map[string]cand{}
		for _, c := range r.Candidates {
			if c.Score != nil {
				c = *c.Score
			}
			m[c.Key] = c
		}
		return m
	}
	score := run("score", "-k", "hash(_id)", "-k", "range(_id)")
	if got := score["hash(_id)"].ShardLoad; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("score hash(_id): rows per shard %v; MongoDB's hashed sharding gives %v", got, want)
	}
	if c := score["range(_id)"]; !c.Monotonic || c.Monotonicy < 0.99 {
		t.Errorf("score range(_id): monotonic %v (r = %v); want flagged, r = 1", c.Monotonic, c.Monotonicy)
	}
	// advise writes its keys as MongoDB does: hash(_id) is {_id: "hashed"},
	// range(created) {created: 1}.
	advise := run("advise")
	c, ok := advise[`{_id: "hashed"}`]
	if !ok {
		t.Fatalf(`advise did not consider {_id: "hashed"}: %v`, advise)
	}
	if fmt.Sprint(c.ShardLoad) != fmt.Sprint(want) {
		t.Errorf(`advise {_id: "hashed"}: rows per shard %v; MongoDB's hashed sharding gives %v`, c.ShardLoad, want)
	}
	ranges := 0
	for key, c := range advise {
		if strings.HasPrefix(key, "{_id: 1") || strings.HasPrefix(key, "{created: 1") {
			ranges++
			if !c.Monotonic {
				t.Errorf("advise %s: not flagged monotonic", key)
			}
		}
	}
	if ranges == 0 {
		t.Errorf("advise considered no range key on _id or created: %v", advise)
	}
}

// TestMongoExportFixture runs score and advise on the checked-in
// mongoexport workload, testdata/mongo/orders.jsonl (24 orders, one an
// hour from 2024-03-01, ObjectIds made as drivers make them: creation
// second, 5 fixed bytes, a counter; users 101..105) and queries.jsonl.
// The expected values were worked outside this code, with Python's
// hashlib from the algorithm text of mongodb_hashed.json:
//
//   - hash(_id) on 4 shards: the 24 hashed ObjectIds fall in the initial
//     chunks (split points -I, 0, I; I = (2^63-1)/4*2) 7, 8, 2, 7 times.
//   - {user_id: 1, _id: "hashed"}: sorted by (user_id, hashed _id), the
//     4 chunks of 6 documents split at (102, -4339971321170325708),
//     (103, 1349971383621328970), (104, 7143346506391592048): user 103's
//     chunks are 1 and 2, user 104 with _id ...0b (hash
//     -8284976433449329236) is chunk 2; so per-shard work is _id alone (30/s)
//     and the created range (5/s) everywhere, user 103 (50/s) on shards 1
//     and 2, the user-and-_id read (10/s) on shard 2: 35, 85, 95, 35.
//   - _id and created grow with insert order: monotonic, r = 1.
func TestMongoExportFixture(t *testing.T) {
	type cand struct {
		Key       string    `json:"key"`
		ShardLoad []float64 `json:"shard_load"`
		ShardWork []float64 `json:"shard_work"`
		Monotonic bool      `json:"monotonic"`
		Mono      float64   `json:"monotonicity"`
		Verdict   string    `json:"verdict"`
		Viable    *bool     `json:"viable"`
		Rejection string    `json:"rejection"`
		Score     *cand     `json:"score"`
	}
	run := func(args ...string) map[string]cand {
		t.Helper()
		code, out, errs := runCmd(t, "", append(args, "--rows", "testdata/mongo/orders.jsonl", "--queries", "testdata/mongo/queries.jsonl", "--engine", "mongodb", "--shards", "4", "--format", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var r struct{ Candidates []cand }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		m := map[string]cand{}
		for _, c := range r.Candidates {
			if c.Score != nil {
				c.Score.Rejection, c.Score.Viable = c.Rejection, c.Viable
				c = *c.Score
			}
			m[c.Key] = c
		}
		return m
	}
	compound := `{user_id: 1, _id: "hashed"}`
	score := run("score", "-k", "hash(_id)", "-k", "range(_id)", "-k", "range(created)", "-k", compound)
	if got := fmt.Sprint(score["hash(_id)"].ShardLoad); got != "[7 8 2 7]" {
		t.Errorf("hash(_id): documents per shard %s; MongoDB's hashed sharding gives [7 8 2 7]", got)
	}
	if got := fmt.Sprint(score[compound].ShardLoad); got != "[6 6 6 6]" {
		t.Errorf("%s: documents per shard %s; want [6 6 6 6]", compound, got)
	}
	if got := fmt.Sprint(score[compound].ShardWork); got != "[35 85 95 35]" {
		t.Errorf("%s: work per shard %s; want [35 85 95 35]", compound, got)
	}
	for _, k := range []string{"range(_id)", "range(created)", "hash(_id)"} {
		if c := score[k]; !c.Monotonic || c.Mono != 1 {
			t.Errorf("%s: monotonic %v (r = %v); want flagged, r = 1", k, c.Monotonic, c.Mono)
		}
	}
	// advise writes the keys it generates as MongoDB shard keys:
	// range(created) is {created: 1}, hash(_id) is {_id: "hashed"}.
	advise := run("advise")
	if c, ok := advise["{created: 1}"]; !ok || c.Viable == nil || *c.Viable || !strings.Contains(c.Rejection, "created is monotonic") {
		t.Errorf("advise {created: 1}: %+v; want rejected as monotonic", c)
	}
	if _, ok := advise[compound]; !ok {
		t.Errorf("advise under mongodb did not consider %s for user_id and _id bound together: %v", compound, advise)
	}
	named := run("advise", "-k", "range(_id)", "-k", "hash(_id)")
	if c := named["range(_id)"]; c.Viable == nil || *c.Viable || !strings.Contains(c.Rejection, "_id is monotonic") {
		t.Errorf("advise -k range(_id): %+v; want rejected as monotonic (an ObjectId begins with its creation second)", c)
	}
	if c := advise[`{_id: "hashed"}`]; fmt.Sprint(c.ShardLoad) != "[7 8 2 7]" {
		t.Errorf(`advise {_id: "hashed"}: documents per shard %v; want [7 8 2 7]`, c.ShardLoad)
	}
}

// TestMongoJumboTieBreak: a user holding 21% of the orders (622 of 3,000,
// testdata/mongo/whale-orders.jsonl) under hash(user_id) is one chunk
// MongoDB cannot split (a jumbo chunk, at most one shard's worth on 4
// shards, so "bounded"); {user_id: 1, _id: "hashed"} serves the same
// queries as well (reads by user_id on one shard, by _id alone on every
// shard under both) with no value above a few documents. Equal on every
// other criterion, the key whose largest value is the smaller must win,
// and the summary must say that is why the other lost, not name a cost
// both share (the scatter by _id).
func TestMongoJumboTieBreak(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--rows", "orders=testdata/mongo/whale-orders.jsonl", "--queries", "testdata/mongo/whale-queries.jsonl",
		"--engine", "mongodb", "--shards", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Recommended string   `json:"recommended"`
		Summary     []string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Recommended != `{user_id: 1, _id: "hashed"}` {
		t.Errorf("recommended %q, want the compound hashed key", r.Recommended)
	}
	said := false
	for _, l := range r.Summary {
		if strings.HasPrefix(l, `Not {user_id: "hashed"} (its largest key value holds 21% of its table`) {
			said = true
		}
	}
	if !said {
		t.Errorf(`summary %q does not say {user_id: "hashed"} lost on its largest key value`, r.Summary)
	}
}

// TestPlaceObjectIDUntyped: an ObjectId written as MongoDB writes it
// (Extended JSON {"$oid": ...} or the shell's ObjectId("...")) is placed
// as an ObjectId without --type, as the JSONL reader reads it: MongoDB's
// hashed value of 5b2be413c06d924ab26ff9ca is 2523394966799057167
// (docs/engines.md, from the vectors), not the hash of its text.
func TestPlaceObjectIDUntyped(t *testing.T) {
	for _, v := range []string{`ObjectId("5b2be413c06d924ab26ff9ca")`, `{"$oid": "5b2be413c06d924ab26ff9ca"}`} {
		code, out, errs := runCmd(t, "", "place", "--engine", "mongodb", "--shards", "4", "-k", `{_id: "hashed"}`, v)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", v, code, errs)
		}
		if !strings.Contains(out, "2523394966799057167") {
			t.Errorf("%s placed as text, not an ObjectId:\n%s", v, out)
		}
	}
}

// TestAdviseMongoNotation: under --engine mongodb advise writes the keys
// it proposes as MongoDB shard keys, the documents sh.shardCollection
// takes (MongoDB's shard key syntax; docs/engines.md, mongodb): hashed
// sharding on user_id is {user_id: "hashed"}, ranged on user_id
// {user_id: 1}, on created {created: 1}, in every format, and the
// sh.shardCollection --emit mongodb writes is that same key. The
// shardkey notation (hash(user_id), range(...)) must appear nowhere.
func TestAdviseMongoNotation(t *testing.T) {
	args := []string{"advise", "--rows", "testdata/mongo/orders.jsonl", "--queries", "testdata/mongo/queries.jsonl",
		"--engine", "mongodb", "--shards", "4", "--bootstrap", "0", "--emit", "mongodb"}
	want := []string{`{user_id: "hashed"}`, `{user_id: 1}`, `{_id: "hashed"}`, `{user_id: 1, _id: "hashed"}`, `{created: 1}`}
	for _, f := range []string{"table", "json", "markdown", "html"} {
		a := args
		if f == "html" {
			a = a[:len(a)-2] // the page has no configuration section
		}
		code, out, errs := runCmd(t, "", append(a, "--format", f)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		if f == "json" {
			out = strings.ReplaceAll(out, `\"`, `"`)
		}
		if f == "html" {
			out = strings.ReplaceAll(out, "&#34;", `"`)
			out = strings.ReplaceAll(out, "&quot;", `"`)
		}
		for _, k := range want {
			if !strings.Contains(out, k) {
				t.Errorf("%s: no %s in the advice", f, k)
			}
		}
		for _, bad := range []string{"hash(user_id)", "hash(_id)", "range(user_id)", "range(created)"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the advice writes %s, shardkey's notation, not MongoDB's", f, bad)
			}
		}
		if f == "json" {
			_, out, _ = runCmd(t, "", append(a, "--format", f)...)
			var r struct {
				Recommended string `json:"recommended"`
				Config      struct {
					Key  string `json:"key"`
					Text string `json:"text"`
				} `json:"config"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.Recommended != `{user_id: "hashed"}` || r.Config.Key != r.Recommended {
				t.Errorf("recommended %q, config for %q; want {user_id: \"hashed\"} for both", r.Recommended, r.Config.Key)
			}
			if !strings.Contains(r.Config.Text, `sh.shardCollection("app.orders", { user_id: "hashed" })`) {
				t.Errorf("--emit mongodb:\n%s\nwant sh.shardCollection(\"app.orders\", { user_id: \"hashed\" })", r.Config.Text)
			}
		}
	}
	// A key the user names stays as written.
	code, out, errs := runCmd(t, "", "advise", "--rows", "testdata/mongo/orders.jsonl", "--queries", "testdata/mongo/queries.jsonl",
		"--engine", "mongodb", "--shards", "4", "--bootstrap", "0", "-k", "hash(user_id)", "--format", "json")
	if code != 0 || !strings.Contains(out, `"recommended": "hash(user_id)"`) {
		t.Errorf("advise -k hash(user_id): exit %d %s: want the key as written", code, errs)
	}
}

// TestMongoNoReferenceCollections: MongoDB has no reference (replicated)
// collections; an unsharded collection lives on the database's primary
// shard, which serves every read and write of it (MongoDB manual,
// "Primary Shard"). In the workspace scenario members takes "check a
// permission" at 20,000 reads/s (the spec's rate): scored under mongodb,
// members:replicate puts all 20,000/s on one shard (shard 0, the
// primary), not one read on any shard; and the advisor offers no
// candidate with replicate under mongodb.
func TestMongoNoReferenceCollections(t *testing.T) {
	code, spec, errs := runCmd(t, "", "demo", "workspace", "--print")
	if code != 0 {
		t.Fatalf("demo --print: exit %d: %s", code, errs)
	}
	path := t.TempDir() + "/workspace.yaml"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "score", "--workload", path, "--engine", "mongodb", "-k", "hash(page_id); members:replicate", "--format", "json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			ShardWork []float64 `json:"shard_work"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) != 1 || len(r.Candidates[0].ShardWork) != 64 {
		t.Fatalf("want one candidate on 64 shards: %s", out)
	}
	if w := r.Candidates[0].ShardWork[0]; w < 20000 {
		t.Errorf("primary shard (0) does %.0f units/s; want at least members' 20,000 reads/s", w)
	}
	if !strings.Contains(errs, "MongoDB has no reference collections") {
		t.Errorf("no warning that replicate is unsharded under mongodb: %s", errs)
	}
	code, out, errs = runCmd(t, "", "advise", "workspace", "--engine", "mongodb", "--bootstrap", "0", "--format", "json")
	if code != 0 {
		t.Fatalf("advise: exit %d: %s", code, errs)
	}
	var adv struct {
		Candidates []struct {
			Key string `json:"key"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	for _, c := range adv.Candidates {
		if strings.Contains(c.Key, "replicate") {
			t.Errorf("advise under mongodb offers %q: MongoDB has no reference collections", c.Key)
		}
	}
	if !strings.Contains(out, "MongoDB has no reference collections") {
		t.Error("advise does not say why members is sharded rather than replicated")
	}
}

// TestMongoJumboShare: user 7 holds 622 of the 3,000 orders
// (testdata/mongo/whale-orders.jsonl: 20.7%), over one shard's fair share
// on 8 shards (1/8 = 12.5%) but not on 4 (25%). MongoDB splits chunks only
// between shard key values, so under {user_id: "hashed"} its documents
// are one chunk, jumbo once it outgrows the 128 MiB chunkSize (MongoDB
// 6.0's default), which happens once orders holds more than 128 MiB /
// (622/3000) = 617.36 MiB. On 8 shards the verdict, the candidate's block
// and the warnings say so and name the compound shard key with _id as
// suffix, re-simulated as a fix; on 4 shards no jumbo chunk is named
// from the share.
func TestMongoJumboShare(t *testing.T) {
	run := func(shards string) (string, string) {
		code, out, errs := runCmd(t, "", "advise", "--rows", "orders=testdata/mongo/whale-orders.jsonl", "--queries", "testdata/mongo/whale-queries.jsonl",
			"--engine", "mongodb", "--shards", shards, "--bootstrap", "0", "--sweep", "", "-k", `{user_id: "hashed"}`)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return out, errs
	}
	out, errs := run("8")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		`== 1. {user_id: "hashed"}: recommended: 89% of interactive requests single-shard; but orders.user_id = 7 would be a jumbo chunk (21% of the rows of orders in one chunk the balancer cannot split or move) ==`,
		"more than one shard's fair share (1/8 = 12.5%)",
		"once orders holds more than 128 MiB / 20.7% = 617.4 MiB",
		`{user_id: 1, _id: 1} or {user_id: 1, _id: "hashed"}`,
		`fix (compound-key): Jumbo chunk: shard orders by {user_id: 1, _id: "hashed"} instead`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("8 shards: the advice lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "jumbo chunk: orders.user_id = 7") {
		t.Errorf("8 shards: no jumbo chunk warning on stderr: %s", errs)
	}
	out, _ = run("4")
	if strings.Contains(out, "would be a jumbo chunk") || strings.Contains(out, "compound-key") {
		t.Errorf("4 shards: 20.7%% is under the fair share 25%%, yet a jumbo chunk is named:\n%s", out)
	}
}
