package partition

import (
	"fmt"
	"strconv"

	"github.com/shardkey/shardkey"
)

// appendClientKey appends the key string a client of a key-value store
// (Redis, memcached) sends for key: Text and Bytes as their raw bytes,
// integers in decimal (what redis-py, Jedis and libmemcached users send for
// a number), other values in their text form (shardkey.Value.String: UUIDs
// as 8-4-4-4-12, floats as Python's repr, timestamps in RFC 3339). A compound
// key's parts are joined with ':', the usual "object:id" naming of such
// stores; the systems themselves only ever see one string. It fails with
// ErrNoDestination for a NULL part (such stores have no NULL key).
func appendClientKey(b []byte, key []shardkey.Value, system string) ([]byte, error) {
	for i, v := range key {
		if i > 0 {
			b = append(b, ':')
		}
		switch v.Type {
		case shardkey.Null:
			return b, fmt.Errorf("%s: NULL key part: %w", system, ErrNoDestination)
		case shardkey.Text, shardkey.Bytes:
			b = append(b, v.Str...)
		case shardkey.Int16, shardkey.Int32, shardkey.Int64:
			b = strconv.AppendInt(b, v.Int, 10)
		case shardkey.Uint64:
			b = strconv.AppendUint(b, uint64(v.Int), 10)
		default:
			b = v.AppendText(b)
		}
	}
	return b, nil
}

// singleRaw reports the raw bytes of a one-column Text or Bytes key, so
// engines can hash the string in place without copying it.
func singleRaw(key []shardkey.Value) (string, bool) {
	if len(key) == 1 && (key[0].Type == shardkey.Text || key[0].Type == shardkey.Bytes) {
		return key[0].Str, true
	}
	return "", false
}

// singleInt64 reports the value of a one-column Int64 key, for which
// engines take their allocation-free PointInt64 path.
func singleInt64(key []shardkey.Value) (int64, bool) {
	if len(key) == 1 && key[0].Type == shardkey.Int64 {
		return key[0].Int, true
	}
	return 0, false
}
