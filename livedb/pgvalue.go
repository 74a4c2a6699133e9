package livedb

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// Decoding PostgreSQL cells: the binary forms the reader asks for, and the
// server's text output for the rest.

// pgEpoch is 2000-01-01 00:00:00 UTC, PostgreSQL's timestamp and date
// origin, in microseconds since the Unix epoch.
const pgEpoch = 946684800 * 1000000

// pgValue decodes one cell: the binary form of the types pgBinary names
// (PostgreSQL's *send functions: big-endian integers and IEEE floats,
// timestamps as microseconds and dates as days since 2000-01-01, their
// extreme values standing for ±infinity), the text output of the others.
// Infinite timestamps and dates read as NULL. nil is NULL.
func pgValue(b []byte, oid uint32) (shardkey.Value, error) {
	if b == nil {
		return shardkey.Value{}, nil
	}
	need := func(n int) error {
		if len(b) != n {
			return fmt.Errorf("%d bytes for type %d; want %d", len(b), oid, n)
		}
		return nil
	}
	switch oid {
	case oidBool:
		if err := need(1); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Int16, Int: int64(b[0] & 1)}, nil
	case oidInt2:
		if err := need(2); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Int16, Int: int64(int16(binary.BigEndian.Uint16(b)))}, nil
	case oidInt4:
		if err := need(4); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Int32, Int: int64(int32(binary.BigEndian.Uint32(b)))}, nil
	case oidOID:
		if err := need(4); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Int64, Int: int64(binary.BigEndian.Uint32(b))}, nil
	case oidInt8:
		if err := need(8); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Int64, Int: int64(binary.BigEndian.Uint64(b))}, nil
	case oidFloat4:
		if err := need(4); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Float32, Float: float64(math.Float32frombits(binary.BigEndian.Uint32(b)))}, nil
	case oidFloat8:
		if err := need(8); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.Float64, Float: math.Float64frombits(binary.BigEndian.Uint64(b))}, nil
	case oidBytea:
		return shardkey.Value{Type: shardkey.Bytes, Str: string(b)}, nil
	case oidUUID:
		if err := need(16); err != nil {
			return shardkey.Value{}, err
		}
		return shardkey.Value{Type: shardkey.UUID, Str: string(b)}, nil
	case oidTimestamp, oidTimestamptz:
		if err := need(8); err != nil {
			return shardkey.Value{}, err
		}
		us := int64(binary.BigEndian.Uint64(b))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return shardkey.Value{}, nil // ±infinity
		}
		if us > math.MaxInt64-pgEpoch {
			return shardkey.Value{}, fmt.Errorf("timestamp out of range")
		}
		return shardkey.TimeValue(us + pgEpoch), nil
	case oidDate:
		if err := need(4); err != nil {
			return shardkey.Value{}, err
		}
		d := int32(binary.BigEndian.Uint32(b))
		if d == math.MaxInt32 || d == math.MinInt32 {
			return shardkey.Value{}, nil // ±infinity
		}
		const maxDays = (math.MaxInt64 - pgEpoch) / 86400000000
		if int64(d) > maxDays || int64(d) < -maxDays {
			return shardkey.Value{}, fmt.Errorf("date out of range for microseconds since the epoch")
		}
		return shardkey.TimeValue(int64(d)*86400e6 + pgEpoch), nil
	case oidNumeric:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return shardkey.Value{}, fmt.Errorf("numeric %q: %v", b, err)
		}
		return shardkey.FloatValue(f), nil
	case oidMoney:
		// lc_monetary = C: "$1,234.56", "-$1,234.56".
		s := strings.NewReplacer("$", "", ",", "").Replace(string(b))
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return shardkey.Value{}, fmt.Errorf("money %q: %v", b, err)
		}
		return shardkey.FloatValue(f), nil
	}
	return shardkey.TextValue(string(b)), nil
}
