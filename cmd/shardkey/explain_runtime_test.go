package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExplainJSON_RunTimeShards: explain --format json gives "shards":
// null when which shards the statement touches is known only at run time,
// not [] (which reads as "no shard") nor a partial list (which reads as
// the answer):
//   - user_id = $1: one shard, which one known once the parameter is;
//   - user_id = (SELECT max(id) FROM users): users has no user_id, so it
//     stays unsharded on shard 0, but posts' shard is the subquery's
//     value's: [0] alone would be a guess;
//   - user_id IN (5, $1): shard(5) and the parameter's, one or two shards.
//
// The shards already known (users' 0, 5's) are in known_shards.
//
// A statement whose shards are known keeps its list: user_id = 5 is one
// shard, user_id = 5 AND user_id = 6 none ([]), no condition all 8.
func TestExplainJSON_RunTimeShards(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want int // -1: null
	}{
		{"SELECT * FROM posts WHERE user_id = $1", -1},
		{"SELECT * FROM posts WHERE user_id = (SELECT max(id) FROM users)", -1},
		{"SELECT * FROM posts WHERE user_id IN (5, $1)", -1},
		{"SELECT * FROM posts WHERE user_id = 5", 1},
		{"SELECT * FROM posts WHERE user_id = 5 AND user_id = 6", 0},
		{"SELECT * FROM posts", 8},
	} {
		code, out, errs := runCmd(t, "", "explain", "--format", "json", "-k", "hash(user_id)", c.sql)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.sql, code, errs)
		}
		var got struct {
			Shards *[]int `json:"shards"`
			Known  []int  `json:"known_shards"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v\n%s", c.sql, err, out)
		}
		switch {
		case c.want < 0 && got.Shards != nil:
			t.Errorf("%s: shards %v; want null (known only at run time)", c.sql, *got.Shards)
		case c.want >= 0 && (got.Shards == nil || len(*got.Shards) != c.want):
			t.Errorf("%s: shards %v; want %d shards", c.sql, out, c.want)
		}
		// The subquery's users (shard 0) and IN's 5 are known: listed
		// apart, in known_shards.
		if wantKnown := strings.Contains(c.sql, "IN (5") || strings.Contains(c.sql, "users"); wantKnown != (len(got.Known) == 1) {
			t.Errorf("%s: known_shards %v; want one shard: %v", c.sql, got.Known, wantKnown)
		}
	}
	// The table output says the same: shard 0 (users) and posts' shard,
	// known only at run time, not "shards: 0".
	_, out, _ := runCmd(t, "", "explain", "-k", "hash(user_id)", "SELECT * FROM posts WHERE user_id = (SELECT max(id) FROM users)")
	if want := "shards:  0 and those of values known only at run time\n"; !strings.Contains(out, want) {
		t.Errorf("table output:\n%s\nwant the line %q", out, want)
	}
}
