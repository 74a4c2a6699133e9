package advisor_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestRedisPlaceValuesNamesOwnSlots: on 16384 slots over 8 masters the
// place-values fix moves each warehouse's own hash slot to a master; the
// text named the free slot the re-simulation stands in with (w_id 1 "->
// node 2 (slot 4096)"), and CLUSTER SETSLOT 4096 moves a slot no w_id
// key hashes to. Redis's CLUSTER KEYSLOT 1 is 9842 (CRC16-XMODEM of "1"
// is 0x2672); every value shown is checked against the redis engine
// (vector-tested against Redis's own keyHashSlot in partition).
func TestRedisPlaceValuesNamesOwnSlots(t *testing.T) {
	as := redisTPCC(t, 16384, 8, 0).Candidates[0]
	var text string
	for _, f := range as.Fixes {
		if f.Kind == "place-values" {
			text = strings.Join(strings.Fields(f.Text), " ")
		}
	}
	if text == "" {
		t.Fatal("no place-values fix")
	}
	if !strings.Contains(text, "1 (slot 9842) -> node ") {
		t.Errorf("w_id 1's own slot 9842 not named:\n%s", text)
	}
	eng, _ := partition.Lookup("redis")
	layout, _ := eng.Layout(16384)
	re := regexp.MustCompile(`(\d+) \(slot (\d+)\) -> node \d+`)
	ms := re.FindAllStringSubmatch(text, -1)
	if len(ms) != 8 {
		t.Fatalf("%d values shown with their slots, want the 8 warehouses:\n%s", len(ms), text)
	}
	for _, m := range ms {
		v, _ := strconv.ParseInt(m[1], 10, 64)
		p, err := eng.Point([]shardkey.Value{shardkey.IntValue(v)})
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.Itoa(layout.Shard(p)); m[2] != want {
			t.Errorf("w_id %s shown in slot %s; Redis puts it in slot %s", m[1], m[2], want)
		}
	}
}
