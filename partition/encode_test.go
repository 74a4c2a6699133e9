package partition

import (
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestTextKey: the key text blake2b hashes is Python's "|".join(map(str,
// parts)): integers in decimal (strconv's), text as is, other types by
// Value.AppendText.
func TestTextKey(t *testing.T) {
	for _, c := range []struct {
		key  []shardkey.Value
		want string
	}{
		{[]shardkey.Value{shardkey.IntValue(0)}, "0"},
		{[]shardkey.Value{shardkey.IntValue(7)}, "7"},
		{[]shardkey.Value{shardkey.IntValue(-7)}, "-7"},
		{[]shardkey.Value{shardkey.IntValue(100001), shardkey.TextValue("2024-07")}, "100001|2024-07"},
		{[]shardkey.Value{shardkey.IntValue(math.MinInt64)}, "-9223372036854775808"},
		{[]shardkey.Value{shardkey.IntValue(math.MaxInt64)}, "9223372036854775807"},
		{[]shardkey.Value{{Type: shardkey.Int16, Int: -32768}, {Type: shardkey.Int32, Int: 2147483647}}, "-32768|2147483647"},
		{[]shardkey.Value{{Type: shardkey.Uint64, Int: -1}, {Type: shardkey.Null}}, "18446744073709551615|None"},
		{[]shardkey.Value{shardkey.FloatValue(2.5), shardkey.TextValue("")}, "2.5|"},
	} {
		if got := string(textKey(nil, c.key, '|')); got != c.want {
			t.Errorf("textKey(%v) = %q; want %q", c.key, got, c.want)
		}
	}
}
