package input

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/shardkey/shardkey"
)

// Parquet type mapping (physical type, then logical or converted type):
//
//	BOOLEAN                              int16 (0 or 1)
//	INT32  INT(8|16, signed)             int16
//	INT32  INT(32, signed) or none       int32
//	INT32  INT(8|16|32, unsigned)        int64
//	INT32  DATE                          timestamp (midnight UTC)
//	INT64  INT(64, unsigned)             uint64
//	INT64  TIMESTAMP(any unit)           timestamp (microseconds)
//	INT64  otherwise                     int64
//	INT96                                timestamp (legacy Impala/Spark form)
//	INT32/INT64 DECIMAL(p, s)            float64 (value / 10^s)
//	FLOAT, DOUBLE                        float32, float64
//	BYTE_ARRAY STRING/ENUM/JSON (UTF8)   text
//	BYTE_ARRAY otherwise                 bytes
//	FIXED_LEN_BYTE_ARRAY(16) UUID        uuid
//	FIXED_LEN_BYTE_ARRAY otherwise       bytes
//
// Options.Types overrides a column's type; the value is then converted from
// its text form, as a CSV cell would be. Only flat schemas are read: a
// nested or repeated column is an error naming it.

// parquetBatch is the number of values read from a page at a time.
const parquetBatch = 4096

// pqColumn is one leaf column of the file and how its values convert.
type pqColumn struct {
	name    string
	natural shardkey.Type // the type the physical and logical types map to
	typ     shardkey.Type // the table column's type (natural unless overridden)
	conv    func(parquet.Value) shardkey.Value
	col     *shardkey.Column // nil for the weight column
	weight  bool
}

// readParquetRows reads a Parquet file row group by row group, column by
// column, into a new table. Errors name the file, the 1-based row and the
// column.
//
// parquet-go panics on some malformed files (a leaf column typed MAP:
// "cannot call Kind on parquet MAP type"); a panic while opening or
// reading is an input error naming the file and the row group and column
// being read, like any other unreadable file.
func readParquetRows(file, name string, o Options) (t *shardkey.Table, err error) {
	where := ""
	defer func() {
		if e := recover(); e != nil {
			t, err = nil, shardkey.Errorf(file, 0, where, "not a readable Parquet file: the Parquet reader failed (it panicked: %v)", e)
		}
	}()
	f, err := openInput(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, shardkey.Errorf(file, 0, "", "not a readable Parquet file: %v", err)
	}
	return readParquet(pf, file, name, o, &where)
}

// readParquet reads pf; *where names the column (and row group) being
// read, for readParquetRows' message on a panic.
func readParquet(pf *parquet.File, file, name string, o Options, where *string) (*shardkey.Table, error) {
	fields := pf.Schema().Fields()
	if len(fields) == 0 {
		return nil, shardkey.Errorf(file, 0, "", "the schema has no columns")
	}
	t := &shardkey.Table{Name: name}
	cols := make([]*pqColumn, len(fields))
	for i, fd := range fields {
		*where = "column " + fd.Name()
		pc, err := newPQColumn(fd, name, o)
		if err != nil {
			return nil, shardkey.Errorf(file, 0, "column "+fd.Name(), "%v", err)
		}
		if pc.weight {
			if t.Weights != nil {
				return nil, shardkey.Errorf(file, 0, "column "+fd.Name(), "a second weight column")
			}
			t.Weights = []float64{}
		} else {
			pc.col = &shardkey.Column{Name: pc.name, Type: pc.typ}
			t.Columns = append(t.Columns, pc.col)
		}
		cols[i] = pc
	}
	base := int64(0) // rows before the current row group
	vals := make([]parquet.Value, parquetBatch)
	for _, rg := range pf.RowGroups() {
		n := rg.NumRows()
		chunks := rg.ColumnChunks()
		if len(chunks) != len(cols) {
			return nil, shardkey.Errorf(file, 0, "", "row group at row %d has %d columns, schema has %d", base+1, len(chunks), len(cols))
		}
		for j, pc := range cols {
			*where = fmt.Sprintf("row group at row %d: column %s", base+1, pc.name)
			got, err := pc.readChunk(chunks[j], t, vals, base)
			if err != nil {
				var ie *shardkey.InputError
				if errors.As(err, &ie) {
					ie.File = file
					return nil, ie
				}
				return nil, shardkey.Errorf(file, 0, fmt.Sprintf("row group at row %d: column %s", base+1, pc.name), "%v", err)
			}
			if got != n {
				return nil, shardkey.Errorf(file, 0, fmt.Sprintf("row group at row %d: column %s", base+1, pc.name), "%d values for %d rows", got, n)
			}
		}
		base += n
	}
	*where = ""
	if base == 0 {
		return nil, shardkey.Errorf(file, 0, "", "no rows")
	}
	t.Rows = int(base)
	return t, nil
}

// readChunk appends one column chunk's values and returns how many it read.
func (pc *pqColumn) readChunk(cc parquet.ColumnChunk, t *shardkey.Table, vals []parquet.Value, base int64) (int64, error) {
	pages := cc.Pages()
	defer pages.Close()
	row := base
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return row - base, err
		}
		vr := p.Values()
		for {
			k, err := vr.ReadValues(vals)
			for _, v := range vals[:k] {
				row++
				if err := pc.append(v, t); err != nil {
					parquet.Release(p)
					return row - base, shardkey.Errorf("", 0, fmt.Sprintf("row %d: column %s", row, pc.name), "%v", err)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(p)
				return row - base, err
			}
		}
		parquet.Release(p)
	}
	return row - base, nil
}

// append adds one value to the column (or the table's weights).
func (pc *pqColumn) append(v parquet.Value, t *shardkey.Table) error {
	if pc.weight {
		if v.IsNull() {
			return fmt.Errorf("weight is null")
		}
		w := pc.conv(v).AsFloat()
		if err := checkWeight(w); err != nil {
			return err
		}
		t.Weights = append(t.Weights, w)
		return nil
	}
	if v.IsNull() {
		return pc.col.Append(shardkey.Value{})
	}
	sv := pc.conv(v)
	if pc.typ != pc.natural {
		var err error
		if sv, err = convertValue(sv, pc.typ); err != nil {
			return err
		}
	}
	return pc.col.Append(sv)
}

// convertValue converts v to type t through its text form (ObjectIds from
// 12-byte binary, dates from timestamps or integer milliseconds, any value
// to extjson by its BSON form, and integers of
// another width directly).
func convertValue(v shardkey.Value, t shardkey.Type) (shardkey.Value, error) {
	if v.Type.IsInt() && v.Type != shardkey.Timestamp && t.IsInt() && t != shardkey.Timestamp {
		return shardkey.Value{Type: t, Int: v.Int}, nil
	}
	if v.Type == shardkey.Bytes && t == shardkey.Text || v.Type == shardkey.Text && t == shardkey.Bytes {
		return shardkey.Value{Type: t, Str: v.Str}, nil
	}
	if v.Type == shardkey.Bytes && t == shardkey.UUID && len(v.Str) == 16 {
		return shardkey.Value{Type: t, Str: v.Str}, nil
	}
	if v.Type == shardkey.Bytes && t == shardkey.ObjectID && len(v.Str) == 12 {
		return shardkey.Value{Type: t, Str: v.Str}, nil // an ObjectId as FIXED_LEN_BYTE_ARRAY(12)
	}
	if t == shardkey.Date {
		switch {
		case v.Type == shardkey.Timestamp:
			ms := v.Int / 1000
			if v.Int%1000 < 0 {
				ms--
			}
			return shardkey.Value{Type: t, Int: ms}, nil
		case v.Type.IsInt() || v.Type == shardkey.Uint64 && v.Int >= 0:
			return shardkey.Value{Type: t, Int: v.Int}, nil // milliseconds since the epoch
		}
	}
	if t == shardkey.ExtJSON {
		if b, ok := shardkey.ToBSON(v); ok {
			return b, nil
		}
	}
	out, err := shardkey.ParseValue(v.String(), t)
	if err != nil {
		return out, fmt.Errorf("%v (stored as %s; set the type with --column-type)", err, v.Type)
	}
	return out, nil
}

func newPQColumn(fd parquet.Field, table string, o Options) (*pqColumn, error) {
	if !fd.Leaf() {
		return nil, fmt.Errorf("nested (group) columns are not supported: write a flat file")
	}
	if fd.Repeated() {
		return nil, fmt.Errorf("repeated columns are not supported: write a flat file")
	}
	pc := &pqColumn{name: fd.Name(), weight: strings.EqualFold(fd.Name(), "weight")}
	nat, conv, err := parquetType(fd.Type())
	if err != nil {
		return nil, err
	}
	pc.natural, pc.typ, pc.conv = nat, nat, conv
	if pc.weight {
		if !nat.IsNumeric() {
			return nil, fmt.Errorf("weight column of type %s: want a number", fd.Type())
		}
		return pc, nil
	}
	if typ, ok := o.typeOf(table, pc.name); ok {
		pc.typ = typ
	}
	return pc, nil
}

// parquetType returns the shardkey type of a leaf's Parquet type and the
// conversion of its non-null values.
func parquetType(pt parquet.Type) (shardkey.Type, func(parquet.Value) shardkey.Value, error) {
	var lt format.LogicalTypeValue
	if l := pt.LogicalType(); l != nil {
		lt = l.Value
	}
	ct := deprecated.ConvertedType(-1)
	if c := pt.ConvertedType(); c != nil {
		ct = *c
	}
	switch pt.Kind() {
	case parquet.Boolean:
		return shardkey.Int16, func(v parquet.Value) shardkey.Value {
			if v.Boolean() {
				return shardkey.Value{Type: shardkey.Int16, Int: 1}
			}
			return shardkey.Value{Type: shardkey.Int16}
		}, nil
	case parquet.Int32:
		if scale, ok := decimalScale(lt); ok {
			div := math.Pow10(int(scale))
			return shardkey.Float64, func(v parquet.Value) shardkey.Value {
				return shardkey.FloatValue(float64(v.Int32()) / div)
			}, nil
		}
		switch l := lt.(type) {
		case *format.DateType:
			return shardkey.Timestamp, dateValue, nil
		case *format.IntType:
			return int32Type(int(l.BitWidth), l.IsSigned)
		}
		switch ct {
		case deprecated.Date:
			return shardkey.Timestamp, dateValue, nil
		case deprecated.Int8:
			return int32Type(8, true)
		case deprecated.Int16:
			return int32Type(16, true)
		case deprecated.Uint8:
			return int32Type(8, false)
		case deprecated.Uint16:
			return int32Type(16, false)
		case deprecated.Uint32:
			return int32Type(32, false)
		}
		return int32Type(32, true)
	case parquet.Int64:
		if scale, ok := decimalScale(lt); ok {
			div := math.Pow10(int(scale))
			return shardkey.Float64, func(v parquet.Value) shardkey.Value {
				return shardkey.FloatValue(float64(v.Int64()) / div)
			}, nil
		}
		unsigned := ct == deprecated.Uint64
		unit := int64(0) // divisor to microseconds; negative: multiplier
		switch l := lt.(type) {
		case *format.IntType:
			unsigned = !l.IsSigned
		case *format.TimestampType:
			switch l.Unit.Value.(type) {
			case *format.MilliSeconds:
				unit = -1000
			case *format.NanoSeconds:
				unit = 1000
			default:
				unit = 1
			}
		}
		switch ct {
		case deprecated.TimestampMillis:
			unit = -1000
		case deprecated.TimestampMicros:
			unit = 1
		}
		switch {
		case unit > 0:
			return shardkey.Timestamp, func(v parquet.Value) shardkey.Value {
				return shardkey.TimeValue(floorDiv(v.Int64(), unit))
			}, nil
		case unit < 0:
			return shardkey.Timestamp, func(v parquet.Value) shardkey.Value {
				return shardkey.TimeValue(v.Int64() * -unit)
			}, nil
		case unsigned:
			return shardkey.Uint64, func(v parquet.Value) shardkey.Value {
				return shardkey.Value{Type: shardkey.Uint64, Int: v.Int64()}
			}, nil
		}
		return shardkey.Int64, func(v parquet.Value) shardkey.Value {
			return shardkey.Value{Type: shardkey.Int64, Int: v.Int64()}
		}, nil
	case parquet.Int96:
		return shardkey.Timestamp, func(v parquet.Value) shardkey.Value {
			i := v.Int96()
			nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
			const unixJulianDay = 2440588
			return shardkey.TimeValue((int64(i[2])-unixJulianDay)*86400e6 + nanos/1000)
		}, nil
	case parquet.Float:
		return shardkey.Float32, func(v parquet.Value) shardkey.Value {
			return shardkey.Value{Type: shardkey.Float32, Float: float64(v.Float())}
		}, nil
	case parquet.Double:
		return shardkey.Float64, func(v parquet.Value) shardkey.Value {
			return shardkey.FloatValue(v.Double())
		}, nil
	case parquet.ByteArray:
		text := ct == deprecated.UTF8 || ct == deprecated.Enum || ct == deprecated.Json
		switch lt.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			text = true
		}
		if text {
			return shardkey.Text, func(v parquet.Value) shardkey.Value {
				return shardkey.TextValue(string(v.ByteArray()))
			}, nil
		}
		return shardkey.Bytes, bytesValue, nil
	case parquet.FixedLenByteArray:
		if _, ok := lt.(*format.UUIDType); ok && pt.Length() == 16 {
			return shardkey.UUID, func(v parquet.Value) shardkey.Value {
				return shardkey.Value{Type: shardkey.UUID, Str: string(v.ByteArray())}
			}, nil
		}
		return shardkey.Bytes, bytesValue, nil
	}
	return shardkey.Null, nil, fmt.Errorf("unsupported Parquet type %s", pt)
}

func bytesValue(v parquet.Value) shardkey.Value {
	return shardkey.Value{Type: shardkey.Bytes, Str: string(v.ByteArray())}
}

func dateValue(v parquet.Value) shardkey.Value {
	return shardkey.TimeValue(int64(v.Int32()) * 86400e6)
}

func int32Type(bits int, signed bool) (shardkey.Type, func(parquet.Value) shardkey.Value, error) {
	switch {
	case !signed:
		return shardkey.Int64, func(v parquet.Value) shardkey.Value {
			return shardkey.IntValue(int64(uint32(v.Int32())))
		}, nil
	case bits <= 16:
		return shardkey.Int16, func(v parquet.Value) shardkey.Value {
			return shardkey.Value{Type: shardkey.Int16, Int: int64(v.Int32())}
		}, nil
	}
	return shardkey.Int32, func(v parquet.Value) shardkey.Value {
		return shardkey.Value{Type: shardkey.Int32, Int: int64(v.Int32())}
	}, nil
}

// decimalScale reports the scale of a DECIMAL column.
// (Files carrying only the converted type keep the scale elsewhere in the
// schema; parquet-go exposes the logical type for them too.)
func decimalScale(lt format.LogicalTypeValue) (int32, bool) {
	if d, ok := lt.(*format.DecimalType); ok {
		return d.Scale, true
	}
	return 0, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
