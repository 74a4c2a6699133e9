package partition

import (
	"context"
	"encoding/hex"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/key"
	"vitess.io/vitess/go/vt/vtgate/vindexes"

	"github.com/shardkey/shardkey"
)

// TestVitessMultiCol checks the vitess-multicol engine against the real
// multicol vindex (vitess.io/vitess, the version in go.mod): the same
// keyspace id, or DestinationNone, for each configuration and key.
func TestVitessMultiCol(t *testing.T) {
	keys := [][]shardkey.Value{
		{shardkey.IntValue(1), shardkey.IntValue(2)},
		{shardkey.IntValue(-7), shardkey.TextValue("user_1")},
		{shardkey.TextValue("Straße"), shardkey.IntValue(42)},
		{{Type: shardkey.Uint64, Int: -1}, shardkey.IntValue(0)},
		{shardkey.IntValue(10), shardkey.IntValue(20), shardkey.TextValue("x")},
		{shardkey.TextValue("abc"), shardkey.IntValue(1)}, // hash maps no text: DestinationNone
	}
	compared := 0
	defer func() {
		if compared < 20 {
			t.Errorf("only %d keys compared with Vitess", compared)
		}
	}()
	for _, c := range []struct {
		spec   string
		params map[string]string // without column_count
	}{
		{"vitess-multicol", map[string]string{}},
		{"vitess-multicol(column_vindex=xxhash,hash)", map[string]string{"column_vindex": "xxhash,hash"}},
		{"vitess-multicol(column_vindex=unicode_loose_md5,xxhash,binary_md5, column_bytes=1,5)", map[string]string{"column_vindex": "unicode_loose_md5,xxhash,binary_md5", "column_bytes": "1,5"}},
		{"vitess-multicol(column_vindex=binary_md5,numeric,xxhash, column_bytes=3)", map[string]string{"column_vindex": "binary_md5,numeric,xxhash", "column_bytes": "3"}},
		{"vitess-multicol(column_vindex=reverse_bits)", map[string]string{"column_vindex": "reverse_bits"}},
	} {
		e := mustLookup(t, c.spec)
		for _, k := range keys {
			params := map[string]string{"column_count": string(rune('0' + len(k)))}
			for p, v := range c.params {
				params[p] = v
			}
			vdx, err := vindexes.CreateVindex("multicol", "mc", params)
			if err != nil {
				if _, herr := e.Hash(k); herr == nil {
					t.Errorf("%s %v: Vitess refuses the configuration (%v); shardkey does not", c.spec, k, err)
				}
				continue
			}
			row := make([]sqltypes.Value, len(k))
			for i, v := range k {
				switch v.Type {
				case shardkey.Int64:
					row[i] = sqltypes.NewInt64(v.Int)
				case shardkey.Uint64:
					row[i] = sqltypes.NewUint64(v.Uint())
				case shardkey.Text:
					row[i] = sqltypes.NewVarChar(v.Str)
				}
			}
			dests, err := vdx.(vindexes.MultiColumn).Map(context.Background(), nil, [][]sqltypes.Value{row})
			if err != nil {
				t.Fatal(err)
			}
			h, herr := e.Hash(k)
			compared++
			switch d := dests[0].(type) {
			case key.DestinationKeyspaceID:
				if herr != nil || h.Hex != hex.EncodeToString(d) {
					t.Errorf("%s %v: %v, %v; Vitess %x", c.spec, k, h, herr, []byte(d))
				}
			case key.DestinationNone:
				if !IsNoDestination(herr) {
					t.Errorf("%s %v: %v, %v; Vitess DestinationNone", c.spec, k, h, herr)
				}
			default:
				t.Errorf("%s %v: Vitess gives %T", c.spec, k, d)
			}
		}
	}
}
