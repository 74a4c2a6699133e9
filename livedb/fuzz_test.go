package livedb

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

// FuzzCellValue feeds arbitrary bytes to the cell conversions (a hostile
// or broken server chooses them): PostgreSQL's binary and text forms by
// type, MySQL's text cells by column type. They may fail, never panic,
// and a value they return has the column's type or is NULL.
func FuzzCellValue(f *testing.F) {
	be8 := func(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }
	for _, seed := range [][]byte{
		nil, {}, {1}, {0, 7}, {0xff, 0xff, 0xff, 0xff}, be8(math.MaxInt64), be8(1 << 63), be8(math.MaxInt64 - 1),
		[]byte("NaN"), []byte("-$1,234.56"), []byte("12345.678"), []byte("2024-01-01"), []byte("0x00ff"),
	} {
		f.Add(seed)
	}
	oids := []uint32{oidBool, oidInt2, oidInt4, oidOID, oidInt8, oidFloat4, oidFloat8, oidBytea, oidUUID,
		oidTimestamp, oidTimestamptz, oidDate, oidNumeric, oidMoney, 25}
	types := []shardkey.Type{shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64, shardkey.Float32,
		shardkey.Float64, shardkey.Text, shardkey.Bytes, shardkey.UUID, shardkey.Timestamp}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, oid := range oids {
			v, err := pgValue(b, oid)
			if err == nil && v.Type != shardkey.Null && v.Type != pgType(oid) {
				t.Errorf("pgValue(%x, %d) = %+v; want type %s", b, oid, v, pgType(oid))
			}
		}
		s := string(b)
		for _, typ := range types {
			v, err := cellValue(&s, typ)
			if err == nil && v.Type != shardkey.Null && v.Type != typ {
				t.Errorf("cellValue(%q, %s) = %+v; want that type", s, typ, v)
			}
		}
	})
}
