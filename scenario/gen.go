package scenario

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
)

type genKind uint8

const (
	gSequential genKind = iota
	gUUID
	gTime
	gUniform
	gZipf
	gNURand
)

// colGen generates one column's values.
type colGen struct {
	spec   *ColumnSpec
	kind   genKind
	typ    shardkey.Type
	start  int64 // sequential start, or time start in microseconds
	step   int64 // time step in microseconds
	bucket string
	// finite distributions (uniform, zipf): values and their probabilities
	vals  []shardkey.Value
	probs []float64
	cdf   []float64
	// inherited from the parent table (copied, not generated)
	inherited bool
}

// finite reports whether the column draws from a finite distribution.
func (g *colGen) finite() bool { return g.kind == gUniform || g.kind == gZipf }

// fresh returns how an insert's value of this column relates to the sample.
func (g *colGen) fresh() shardkey.Fresh {
	switch g.kind {
	case gSequential:
		return shardkey.FreshNewest
	case gTime:
		if g.bucket == "" {
			return shardkey.FreshNewest
		}
	case gUUID:
		return shardkey.FreshUnique
	}
	return shardkey.NotFresh
}

func newColGen(file, table string, c *ColumnSpec) (*colGen, error) {
	field := table + "." + c.Name
	bad := func(format string, args ...any) error {
		return shardkey.Errorf(file, c.Line, field, format, args...)
	}
	if c.Name == "" {
		return nil, shardkey.Errorf(file, c.Line, table, "column without a name")
	}
	g := &colGen{spec: c}
	switch strings.ToLower(c.Gen) {
	case "sequential", "serial", "autoincrement":
		g.kind, g.typ = gSequential, shardkey.Int64
		g.start = 1
		if c.Start != "" {
			n, err := strconv.ParseInt(c.Start, 10, 64)
			if err != nil {
				return nil, bad("start %q is not an integer", c.Start)
			}
			g.start = n
		}
	case "uuid":
		g.kind, g.typ = gUUID, shardkey.UUID
	case "time", "time-ordered", "timestamp":
		g.kind, g.typ = gTime, shardkey.Timestamp
		g.start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
		if c.Start != "" {
			v, err := shardkey.ParseValue(c.Start, shardkey.Timestamp)
			if err != nil {
				return nil, bad("start: %v", err)
			}
			g.start = v.Int
		}
		g.step = int64(time.Second / time.Microsecond)
		if c.Step != "" {
			d, err := parseDuration(c.Step)
			if err != nil {
				return nil, bad("step: %v", err)
			}
			g.step = d
		}
		switch c.Bucket {
		case "", "hour", "day", "week", "month":
			g.bucket = c.Bucket
		default:
			return nil, bad("bucket %q: want hour, day, week or month", c.Bucket)
		}
	case "uniform", "zipf":
		if c.Distinct < 1 || c.Distinct > 50_000_000 {
			return nil, bad("distinct %d: must be in 1..50000000", c.Distinct)
		}
		g.kind = gUniform
		probs := make([]float64, c.Distinct)
		if strings.ToLower(c.Gen) == "zipf" {
			g.kind = gZipf
			s := c.S
			if c.TopShare != 0 {
				if c.TopShare <= 1/float64(c.Distinct) || c.TopShare >= 1 {
					return nil, bad("top_share %v: must be above 1/distinct and below 1", c.TopShare)
				}
				s = solveZipf(c.Distinct, c.TopShare)
			}
			if s < 0 || s > 10 || math.IsNaN(s) {
				return nil, bad("s %v: must be in 0..10", s)
			}
			for r := range probs {
				probs[r] = math.Pow(float64(r+1), -s)
			}
		} else {
			for r := range probs {
				probs[r] = 1
			}
		}
		if c.Celebrity < 0 || c.Celebrity >= 1 || math.IsNaN(c.Celebrity) {
			return nil, bad("celebrity %v: must be in 0..0.99", c.Celebrity)
		}
		sum := 0.0
		for _, p := range probs {
			sum += p
		}
		g.typ = shardkey.Int64
		if c.Prefix != "" {
			g.typ = shardkey.Text
		}
		width := len(strconv.Itoa(c.Distinct))
		for r := range probs {
			g.probs = append(g.probs, probs[r]/sum*(1-c.Celebrity))
			// Rank r+1 gets id r+1: ids are not ordered by popularity in
			// real systems, but hashing ignores order and zipf ranks make
			// the hot values easy to read in reports.
			g.vals = append(g.vals, g.value(int64(r+1), width))
		}
		if c.Celebrity > 0 {
			g.probs = append([]float64{c.Celebrity}, g.probs...)
			celeb := shardkey.IntValue(0)
			if g.typ == shardkey.Text {
				celeb = shardkey.TextValue(c.Prefix + "celebrity")
			}
			g.vals = append([]shardkey.Value{celeb}, g.vals...)
		}
		g.cdf = make([]float64, len(g.probs))
		acc := 0.0
		for i, p := range g.probs {
			acc += p
			g.cdf[i] = acc
		}
	case "nurand":
		// TPC-C's non-uniform random (clause 2.1.6): NURand(A, 1, y) =
		// (((random(0, A) | random(1, y)) + C) % y) + 1, with A = s (8191
		// for item ids, 1023 for customer ids) and y = distinct.
		if c.Distinct < 1 || c.S < 1 || c.S > 1<<20 {
			return nil, bad("nurand needs distinct >= 1 and s (TPC-C's A) in 1..1048576")
		}
		g.kind, g.typ = gNURand, shardkey.Int64
	case "":
		return nil, bad("missing gen (want sequential, uuid, time, uniform, zipf or nurand)")
	default:
		return nil, bad("unknown gen %q (want sequential, uuid, time, uniform, zipf or nurand)", c.Gen)
	}
	if g.kind != gUniform && g.kind != gZipf && g.kind != gNURand && (c.Celebrity != 0 || c.Distinct != 0) {
		return nil, bad("distinct and celebrity apply to uniform and zipf columns only")
	}
	if c.Type != "" {
		t, err := shardkey.ParseType(c.Type)
		if err != nil {
			return nil, bad("%v", err)
		}
		if !compatible(g.typ, t) {
			return nil, bad("type %s does not fit gen %s", t, c.Gen)
		}
		g.typ = t
		for i, v := range g.vals {
			if v.Type != shardkey.Text {
				g.vals[i].Type = t
			}
		}
	}
	return g, nil
}

func compatible(gen, declared shardkey.Type) bool {
	if gen == declared {
		return true
	}
	return gen.IsInt() && declared.IsInt() && gen != shardkey.Timestamp && declared != shardkey.Timestamp ||
		gen == shardkey.Int64 && declared == shardkey.Uint64
}

func (g *colGen) value(n int64, width int) shardkey.Value {
	if g.spec.Prefix != "" {
		return shardkey.TextValue(fmt.Sprintf("%s%0*d", g.spec.Prefix, width, n))
	}
	return shardkey.IntValue(n)
}

// draw returns a value from a finite distribution.
func (g *colGen) draw(rng *mrand.Rand) shardkey.Value {
	u := rng.Float64() * g.cdf[len(g.cdf)-1]
	i := sort.SearchFloat64s(g.cdf, u)
	if i >= len(g.vals) {
		i = len(g.vals) - 1
	}
	return g.vals[i]
}

// row returns the value of row i (insert order) for non-finite generators.
func (g *colGen) row(i int, rng *mrand.Rand) shardkey.Value {
	switch g.kind {
	case gSequential:
		return shardkey.Value{Type: g.typ, Int: g.start + int64(i)}
	case gUUID:
		var b [16]byte
		for j := 0; j < 16; j += 8 {
			x := rng.Uint64()
			for k := 0; k < 8; k++ {
				b[j+k] = byte(x >> (8 * k))
			}
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return shardkey.Value{Type: shardkey.UUID, Str: string(b[:])}
	case gTime:
		return shardkey.TimeValue(truncate(g.start+int64(i)*g.step, g.bucket))
	case gNURand:
		a := int64(g.spec.S)
		y := int64(g.spec.Distinct)
		v := ((rng.Int64N(a+1) | (1 + rng.Int64N(y))) + nurandC) % y
		return shardkey.Value{Type: g.typ, Int: v + 1}
	}
	return g.draw(rng)
}

func truncate(us int64, bucket string) int64 {
	t := time.UnixMicro(us).UTC()
	switch bucket {
	case "hour":
		t = t.Truncate(time.Hour)
	case "day":
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case "week":
		t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		t = t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
	case "month":
		t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	default:
		return us
	}
	return t.UnixMicro()
}

// parseDuration accepts Go durations plus d (day) and w (week).
func parseDuration(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(0)
	switch {
	case strings.HasSuffix(s, "d"):
		mult = 24 * 3600 * 1e6
	case strings.HasSuffix(s, "w"):
		mult = 7 * 24 * 3600 * 1e6
	}
	if mult > 0 {
		n, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a positive duration", s)
		}
		return int64(n * float64(mult)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (like 1s, 5m, 1h, 1d)", s)
	}
	return int64(d / time.Microsecond), nil
}

// solveZipf returns s such that rank 1 of d values has the given share.
func solveZipf(d int, share float64) float64 {
	top := func(s float64) float64 {
		h := 0.0
		for r := 1; r <= d; r++ {
			h += math.Pow(float64(r), -s)
		}
		return 1 / h
	}
	lo, hi := 0.0, 10.0
	for i := 0; i < 60; i++ {
		mid := (lo + hi) / 2
		if top(mid) < share {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// nurandC is TPC-C's run-time constant C (fixed, for repeatable specs).
const nurandC = 259
