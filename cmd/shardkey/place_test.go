package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestPlaceJSONVectors runs `place --format json` on values from
// partition/testdata/vectors and checks each object exactly as PRODUCT.md pins it:
// the fields value (the argument as given, a string), hash (the engine's
// own value: a JSON integer, exact for 64-bit values, or the Vitess
// keyspace id as a lowercase hex string) and shard (0-based), and no other.
// Negative values follow "--" so that they are not read as flags.
func TestPlaceJSONVectors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string // one `value hash shard` per value, hash as JSON text
	}{
		{
			// redis_cluster.json: CLUSTER KEYSLOT; 3 masters own
			// 0-5460, 5461-10922, 10923-16383.
			"redis slot", []string{"--engine", "redis", "--shards", "3", "123456789", "foo{hash_tag}", "{user1000}.following"},
			[]string{`"123456789" 12739 2`, `"foo{hash_tag}" 2515 0`, `"{user1000}.following" 3443 0`},
		},
		{
			// cassandra_murmur3.json: bigint tokens, 64-bit and exact.
			"cassandra token", []string{"--engine", "cassandra", "--shards", "4", "--", "1", "42", "1000000", "-9223372036854775808"},
			[]string{
				`"1" 6292367497774912474 ?`, `"42" 8623491988607824794 ?`,
				`"1000000" -7750191165207352691 ?`, `"-9223372036854775808" 9204767954415360687 ?`,
			},
		},
		{
			// kafka_default_partitioner.json: murmur2 as a signed int32
			// before toPositive; the partition for 16 partitions. "21" is
			// a string key (StringSerializer), hence --type text.
			"kafka murmur2", []string{"--engine", "kafka", "--shards", "16", "--type", "text", "21", "foobar", "a-little-bit-longer-string"},
			[]string{`"21" -973932308 12`, `"foobar" -790332482 14`, `"a-little-bit-longer-string" -1486304829 3`},
		},
		{
			// vitess_vindexes.json: hash vindex keyspace ids; 4 even
			// shards -40, 40-80, 80-c0, c0-.
			"vitess keyspace id", []string{"--engine", "vitess", "--shards", "4", "1", "5", "6"},
			[]string{`"1" "166b40b44aba4bd6" 0`, `"5" "70bb023c810ca87a" 1`, `"6" "f098480ac4c4be71" 3`},
		},
		{
			// postgresql_hash.json: hashint4 and the real PARTITION BY
			// HASH (MODULUS 8) remainder of int4 values.
			"postgres hashint4", []string{"--engine", "postgres", "--shards", "8", "--type", "int32", "--", "100", "-42", "12345"},
			[]string{`"100" 108199381 1`, `"-42" -487492805 2`, `"12345" -78097827 4`},
		},
		{
			// mongodb_hashed.json: NumberLong -42 and its initial chunk
			// of 8.
			"mongodb hashed", []string{"--engine", "mongodb", "--shards", "8", "--", "-42"},
			[]string{`"-42" -6824599703653362089 1`},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", append([]string{"place", "--format", "json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.UseNumber()
			var got []map[string]json.RawMessage
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("decoding %s: %v", out, err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d objects, want %d:\n%s", len(got), len(c.want), out)
			}
			for i, obj := range got {
				var keys []string
				for k := range obj {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				if strings.Join(keys, ",") != "hash,shard,value" {
					t.Errorf("object %d has fields %v; want value, hash, shard", i, keys)
				}
				want := strings.Fields(c.want[i])
				if want[2] == "?" {
					want[2] = strconv.Itoa(shardFromLibrary(t, c.args, string(obj["value"]), want[1]))
				}
				line := fmt.Sprintf("%s %s %s", compact(obj["value"]), compact(obj["hash"]), compact(obj["shard"]))
				if line != strings.Join(want, " ") {
					t.Errorf("object %d = %s; want %s", i, line, strings.Join(want, " "))
				}
			}
		})
	}
}

func compact(m json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, m); err != nil {
		return string(m)
	}
	return b.String()
}

// shardFromLibrary places value (a JSON string) with the engine and shard
// count of args through package partition, for engines whose layout is
// cluster state rather than a vector (Cassandra's token ring), and checks
// the library's hash is hash.
func shardFromLibrary(t *testing.T, args []string, value, hash string) int {
	t.Helper()
	var engine string
	n := 0
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--engine":
			engine = args[i+1]
		case "--shards":
			n, _ = strconv.Atoi(args[i+1])
		}
	}
	e, err := partition.Lookup(engine)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := strconv.Unquote(value)
	i, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	key := []shardkey.Value{shardkey.IntValue(i)}
	if h, _ := e.Hash(key); h.String() != hash {
		t.Errorf("%s Hash(%s) = %s; want %s", engine, v, h, hash)
	}
	l, err := e.Layout(n)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Point(key)
	if err != nil {
		t.Fatal(err)
	}
	return l.Shard(p)
}

// TestPlaceForms checks the forms PRODUCT.md pins for place beyond plain
// values, each against a vector or a closed form: BSON types, composite
// keys as JSON arrays, engine options in parentheses, a named server pool
// (the answer is the server), Elasticsearch --id, Citus shard ranges, and
// values outside an engine's domain (shard null with a reason).
func TestPlaceForms(t *testing.T) {
	ketamaPool := "10.0.1.1:11211:600,10.0.1.2:11211:300,10.0.1.3:11211:200,10.0.1.4:11211:350," +
		"10.0.1.5:11211:1000,10.0.1.6:11211:800,10.0.1.7:11211:950,10.0.1.8:11211:100"
	for _, c := range []struct {
		name string
		args []string
		want string // the JSON output, compacted
	}{
		{
			// mongodb_hashed.json: the convertShardKeyToHashed docs
			// ObjectId, initial chunk 5 of 8; Date(0) and Timestamp(0, 0)
			// hash alike (hasher_test.cpp); bool true (HashBoolean).
			"mongodb objectid", []string{"--engine", "mongodb", "--type", "objectid", "5b2be413c06d924ab26ff9ca"},
			`[{"value":"5b2be413c06d924ab26ff9ca","hash":2523394966799057167,"shard":5}]`,
		},
		{
			"mongodb extjson", []string{"--engine", "mongodb", "--shards", "2", "--type", "extjson",
				`{"$date": {"$numberLong": "0"}}`, `{"$timestamp": {"t": 0, "i": 0}}`, `{"$minKey": 1}`, `true`},
			`[{"value":"{\"$date\": {\"$numberLong\": \"0\"}}","hash":-1178696894582842035,"shard":0},` +
				`{"value":"{\"$timestamp\": {\"t\": 0, \"i\": 0}}","hash":-1178696894582842035,"shard":0},` +
				`{"value":"{\"$minKey\": 1}","hash":7961148599568647290,"shard":1},` +
				`{"value":"true","hash":6405873908747105701,"shard":1}]`,
		},
		{
			"mongodb date", []string{"--engine", "mongodb", "--shards", "2", "--type", "date", "1970-01-01T00:00:00Z"},
			`[{"value":"1970-01-01T00:00:00Z","hash":-1178696894582842035,"shard":0}]`,
		},
		{
			// cassandra_murmur3.json: the (text, int) composite ("a", 1).
			"cassandra composite", []string{"--engine", "cassandra", "--shards", "1", "--type", "text,int32", `["a", 1]`},
			`[{"value":"[\"a\", 1]","hash":8247712171917364652,"shard":0}]`,
		},
		{
			// ketama_libmemcached.json: the test's weighted pool; the
			// answer is the server.
			"ketama pool", []string{"--engine", "ketama(servers=" + ketamaPool + ")", "--format", "json", "SVa_]_V41)"},
			`[{"value":"SVa_]_V41)","hash":443691461,"shard":6,"server":"10.0.1.7:11211"}]`,
		},
		{
			// elasticsearch_routing.json, partitioned index: hash("d") +
			// floorMod(hash("d_2"), 3); shard 0 of 4.
			"elasticsearch id", []string{"--engine", "elasticsearch(routing_partition_size=3)", "--shards", "4", "--id", "d_2", "d"},
			`[{"value":"d","hash":2141941894,"shard":0}]`,
		},
		{
			// Citus: 3 shards of 2^32/3 hashes from INT32_MIN; hashint4(123)
			// (citus_hash_distribution.json) is in the second.
			"citus range", []string{"--engine", "citus", "--shards", "3", "--type", "int32", "123"},
			`[{"value":"123","hash":-205084363,"shard":1,"hash_range":[-715827883,715827881]}]`,
		},
		{
			// vitess_vindexes.json: the hash vindex maps text to
			// DestinationNone.
			"vitess none", []string{"--engine", "vitess", "--shards", "4", "abc"},
			`[{"value":"abc","hash":null,"shard":null,"reason":"vitess: the hash vindex maps unsigned integers only; \"abc\" is not an unsigned 64-bit integer: DestinationNone"}]`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, "", append([]string{"place", "--format", "json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got := compact(json.RawMessage(out)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	for _, bad := range [][]string{
		{"--engine", "elasticsearch(routing_partition_size=3)", "d"},
		{"--engine", "citus", "--id", "x", "d"},
		{"--engine", "mongodb", "--type", "objectid", "xyz"},
		{"--engine", "mongodb", "--type", "int32,text", `[1]`},
		{"--engine", "ketama(servers=a:1:1,b:1:1)", "--shards", "3", "x"},
		{"--engine", "ketama(servers=a:1:0)", "x"},
		{"--engine", "mongodb", "--type", "int32,", "1"},
	} {
		if code, _, errs := runCmd(t, "", append([]string{"place"}, bad...)...); code == 0 || errs == "" {
			t.Errorf("place %q: exit %d, %q; want an error", bad, code, errs)
		}
	}
}

// TestPlaceMongoPattern: place -k with MongoDB compound hashed keys. The
// hashed values are the vectors file's (mongodb_hashed.json: String
// 'user_1' -7652920880569912678, String 'a' 2780795045148116090, ObjectId
// 5b2be413c06d924ab26ff9ca 2523394966799057167); the chunks are worked by
// hand: a hashed prefix on 4 shards splits at -I, 0, I (I = (2^63-1)/4*2
// = 4611686018427387902), so -7.65e18 is chunk 0 and 2.52e18 chunk 2; a
// ranged prefix with split points 10, 20 puts user 7 in chunk 0, 10 in 1,
// 25 in 2, and without them its chunk is unknown.
func TestPlaceMongoPattern(t *testing.T) {
	type pl struct {
		Value    string
		Hash     *int64
		Shard    *int
		ShardKey string `json:"shard_key"`
		Reason   string
	}
	run := func(args ...string) []pl {
		t.Helper()
		code, out, errs := runCmd(t, "", append([]string{"place", "--engine", "mongodb", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var r []pl
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return r
	}
	show := func(p pl) string {
		s := p.ShardKey
		if p.Hash != nil {
			s += fmt.Sprintf(" hash %d", *p.Hash)
		}
		if p.Shard != nil {
			s += fmt.Sprintf(" shard %d", *p.Shard)
		} else {
			s += " shard unknown"
		}
		return s
	}
	check := func(got []pl, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%d placements; want %d", len(got), len(want))
		}
		for i := range want {
			if s := show(got[i]); s != want[i] {
				t.Errorf("%s: %s; want %s", got[i].Value, s, want[i])
			}
		}
	}
	check(run("--shards", "4", "-k", `{_id: "hashed", user_id: 1}`, `["user_1", 7]`, `[{"$oid": "5b2be413c06d924ab26ff9ca"}, 1]`),
		`{ _id: NumberLong("-7652920880569912678"), user_id: 7 } hash -7652920880569912678 shard 0`,
		`{ _id: NumberLong("2523394966799057167"), user_id: 1 } hash 2523394966799057167 shard 2`)
	check(run("--shards", "3", "-k", `range({user_id: 1, _id: "hashed"}, bounds=[10, 20])`, `[7, "user_1"]`, `[10, "a"]`, `[25, "a"]`),
		`{ user_id: 7, _id: NumberLong("-7652920880569912678") } hash -7652920880569912678 shard 0`,
		`{ user_id: 10, _id: NumberLong("2780795045148116090") } hash 2780795045148116090 shard 1`,
		`{ user_id: 25, _id: NumberLong("2780795045148116090") } hash 2780795045148116090 shard 2`)
	got := run("--shards", "3", "-k", `{user_id: 1, _id: "hashed"}`, "--type", "int32,text", `[7, "user_1"]`)
	check(got, `{ user_id: 7, _id: NumberLong("-7652920880569912678") } hash -7652920880569912678 shard unknown`)
	if !strings.Contains(got[0].Reason, "bounds=[...]") {
		t.Errorf("reason %q does not say how to give split points", got[0].Reason)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "redis", "-k", `{a: 1}`, "1"}, "use --engine mongodb"},
		{[]string{"--engine", "mongodb", "-k", `hash(a)`, "1"}, "MongoDB shard key pattern"},
		{[]string{"--engine", "mongodb", "-k", `{a: 1, b: "hashed"}`, "--type", "int64", "[1, 2]"}, "1 types for the 2 fields"},
		{[]string{"--engine", "mongodb", "-k", `range({a: "hashed", b: 1}, bounds=[1])`, "[1, 2]"}, "even split of the hash space"},
		{[]string{"--engine", "mongodb", "--shards", "2", "-k", `range({a: 1, b: "hashed"}, bounds=[1, 2])`, "[1, 2]"}, "more than the 2 shards"},
		{[]string{"--engine", "mongodb", "-k", `{a: 1, b: "hashed"}`, "[1]"}, "the shard key pattern has 2 fields, the key 1 values"},
	} {
		code, _, errs := runCmd(t, "", append([]string{"place"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("place %v: exit %d, %q; want an error with %q", c.args, code, errs, c.want)
		}
	}
}
