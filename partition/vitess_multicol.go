package partition

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// VitessMultiCol is Vitess's multicol vindex (vitess.io/vitess
// go/vt/vtgate/vindexes/multicol.go, MultiCol.mapKsid and getColumnBytes):
// each key column is hashed by its own sub-vindex (column_vindex, default
// hash for every column), and the keyspace id is the concatenation of the
// first column_bytes[i] bytes of each column's keyspace id. Unset byte
// counts share what the given ones leave of 8 bytes, each taking the
// ceiling of the remaining bytes over the remaining columns, in column
// order (2 columns: 4 and 4; 3 columns: 3, 3, 2). A column value its
// sub-vindex cannot map makes the whole key DestinationNone, as Map does.
// Options: column_count (default: the key's column count), column_vindex
// (comma-separated: hash, xxhash, binary_md5, unicode_loose_md5,
// unicode_loose_xxhash, numeric, reverse_bits), column_bytes
// (comma-separated, at most 8 in all). Layout and growth are the other
// vindexes' even keyspace-id ranges. Checked against the real vindex in
// vitess_multicol_test.go.
type VitessMultiCol struct {
	count   int      // 0: the key's column count
	vindex  []vtKind // per column; missing ones are hash
	bytes   []int    // per column as given; 0: unset
	vdxArg  string
	byteArg string
}

var _ Engine = VitessMultiCol{}

var vtKindByVindex = map[string]vtKind{
	"hash": vtHash, "xxhash": vtXXHash, "binary_md5": vtBinaryMD5,
	"unicode_loose_md5": vtUnicodeLooseMD5, "unicode_loose_xxhash": vtUnicodeLooseXXHash,
	"numeric": vtNumeric, "reverse_bits": vtReverseBits,
}

func newVitessMultiCol(o Options) (Engine, error) {
	var m VitessMultiCol
	var err error
	if m.count, err = o.Int("column_count", 0); err != nil {
		return nil, fmt.Errorf("vitess-multicol: %v", err)
	}
	if _, ok := o["column_count"]; ok && (m.count < 1 || m.count > 8) {
		return nil, fmt.Errorf("vitess-multicol: column_count=%d must be in 1..8", m.count)
	}
	if s, ok := o["column_vindex"]; ok {
		m.vdxArg = s
		for _, name := range strings.Split(s, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				name = "hash"
			}
			k, ok := vtKindByVindex[name]
			if !ok {
				return nil, fmt.Errorf("vitess-multicol: column_vindex %q: want hash, xxhash, binary_md5, unicode_loose_md5, unicode_loose_xxhash, numeric or reverse_bits", name)
			}
			m.vindex = append(m.vindex, k)
		}
	}
	if s, ok := o["column_bytes"]; ok {
		m.byteArg = s
		for _, b := range strings.Split(s, ",") {
			n := 0
			if b = strings.TrimSpace(b); b != "" {
				if n, err = strconv.Atoi(b); err != nil || n < 1 || n > 8 {
					return nil, fmt.Errorf("vitess-multicol: column_bytes %q: each must be in 1..8", b)
				}
			}
			m.bytes = append(m.bytes, n)
		}
	}
	if m.count > 0 {
		if _, err := m.columnBytes(m.count); err != nil {
			return nil, err
		}
	} else if len(m.vindex) > 8 || len(m.bytes) > 8 {
		return nil, fmt.Errorf("vitess-multicol: at most 8 columns")
	}
	return m, nil
}

func (m VitessMultiCol) Name() string {
	var kvs []string
	if m.count > 0 {
		kvs = append(kvs, "column_count="+strconv.Itoa(m.count))
	}
	if m.vindex != nil {
		kvs = append(kvs, "column_vindex="+m.vdxArg)
	}
	if m.bytes != nil {
		kvs = append(kvs, "column_bytes="+m.byteArg)
	}
	return specName("vitess-multicol", kvs...)
}

// columnBytes is getColumnBytes for n columns.
func (m VitessMultiCol) columnBytes(n int) ([]int, error) {
	if len(m.bytes) > n || len(m.vindex) > n {
		return nil, fmt.Errorf("vitess-multicol: column_vindex or column_bytes names more than %d columns", n)
	}
	out := make([]int, n)
	used, pending := 0, n
	for i, b := range m.bytes {
		if b > 0 {
			out[i] = b
			used += b
			pending--
		}
	}
	remaining := 8 - used
	if pending > remaining {
		return nil, fmt.Errorf("vitess-multicol: column_bytes exceed the keyspace id's 8 bytes")
	}
	for i := range out {
		if out[i] > 0 {
			continue
		}
		out[i] = int(math.Ceil(float64(remaining) / float64(pending)))
		remaining -= out[i]
		pending--
	}
	return out, nil
}

func (m VitessMultiCol) ksid(b []byte, key []shardkey.Value) ([]byte, error) {
	n := len(key)
	if m.count > 0 && n != m.count {
		return nil, fmt.Errorf("vitess-multicol: column_count=%d, but the key has %d columns", m.count, n)
	}
	if n < 1 || n > 8 {
		return nil, fmt.Errorf("vitess-multicol: a key of %d columns: the vindex takes 1 to 8", n)
	}
	widths, err := m.columnBytes(n)
	if err != nil {
		return nil, err
	}
	var sub [32]byte
	for i, v := range key {
		kind := vtHash
		if i < len(m.vindex) {
			kind = m.vindex[i]
		}
		col, err := Vitess{kind}.keyspaceID(sub[:0], []shardkey.Value{v})
		if err != nil {
			if IsNoDestination(err) {
				return nil, errNoDestination("vitess-multicol: column %d: %v", i+1, err)
			}
			return nil, err
		}
		b = append(b, col[:min(widths[i], len(col))]...)
	}
	return b, nil
}

func (m VitessMultiCol) Hash(key []shardkey.Value) (Hash, error) {
	var buf [16]byte
	ksid, err := m.ksid(buf[:0], key)
	if err != nil {
		return Hash{}, err
	}
	return HexHash(ksid), nil
}

func (m VitessMultiCol) Point(key []shardkey.Value) (uint64, error) {
	var buf [16]byte
	ksid, err := m.ksid(buf[:0], key)
	if err != nil {
		return 0, err
	}
	var p [8]byte
	copy(p[:], ksid)
	return binary.BigEndian.Uint64(p[:]), nil
}

func (m VitessMultiCol) Layout(n int) (Layout, error) { return Vitess{}.Layout(n) }

// Grow splits ranges as the other vindexes do.
func (m VitessMultiCol) Grow(l Layout, to int) (Layout, error) { return Vitess{}.Grow(l, to) }
