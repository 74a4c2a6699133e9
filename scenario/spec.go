// Package scenario reads scenario specs: YAML files that describe a
// workload by its shape rather than by samples. A spec names tables whose
// columns have value generators, operations with rates and filters,
// transactions, candidate keys, the shard count and per-shard capacity.
// Build turns a spec into a shardkey.Workload with a seeded generator, so
// the same spec and seed always give the same workload.
//
// The four scenarios of the seed documents (social, orders, chat,
// workspace) are built in as spec files (Builtin); `shardkey demo NAME
// --print` prints one to copy and edit. A complete spec, annotated:
//
//	name: social
//	description: posts of a social app (seed 001)
//	shards: 8
//	nodes: 2                  # optional: the shards are slots on 2 nodes (per-node work, growth)
//	capacity: 1000            # units of work/s one shard can do (with nodes: one node, its slots' work summed)
//	seed: 1
//	tables:
//	  - name: posts
//	    rows: 20000           # size of the generated row sample
//	    columns:
//	      - {name: post_id, gen: sequential}          # 1, 2, 3 ...; inserts take a new, larger id
//	      - {name: user_id, gen: uniform, distinct: 243, celebrity: 0}
//	      - {name: created_at, gen: time, start: "2026-01-01", step: 1m}
//	operations:
//	  - {name: write a post, table: posts, kind: insert, rate: 1000}
//	  - name: read a user's posts
//	    table: posts
//	    rate: 4000
//	    where: {user_id: "?", created_at: recent}
//	  - {name: latest posts, table: posts, rate: 200, where: {created_at: recent}}
//	transactions:
//	  - {name: ..., rate: 10, steps: [{table: posts, kind: insert}]}
//	candidates: [hash(user_id), hash(post_id), range(created_at)]
//	variants:
//	  - name: celebrity
//	    set: {posts.user_id.celebrity: 0.3}
//	    candidates: [hash(user_id), salt(hash(user_id), 4, top=1)]
//
// Generators (gen): sequential (integers from start, in insert order; an
// insert takes a new value above all), uuid (random, unique), time
// (timestamps from start every step, in insert order; with bucket:
// hour|day|week|month the value is the bucket's start, and inserts take the
// newest bucket), uniform (distinct values, equally likely), zipf (distinct
// values, the value of rank r with weight 1/r^s; or top_share: the hottest
// value's share, s solved for it). celebrity: c adds one value that takes
// the share c (0..0.99) of rows and requests, the others scaled to 1-c.
// prefix: "c" makes values text ("c000042"). A table with parent: T and
// per_parent: N (or "1-5") has N rows per row of T, copying the columns that
// T also has (an order's line items carry its order_id and customer_id).
//
// Transaction steps run `repeat` times (N, or LO-HI uniformly), with
// probability `prob`; `vary: [col, ...]` draws those columns anew for
// each repetition; `remote: {col: p}` makes a step use, with probability
// p, another value of col than the one the transaction shares.
//
// Filter values (where): "?" is a parameter drawn from the column's values
// (each distinct value with its exact probability for uniform and zipf
// columns; a sample of rows otherwise), "recent" is a range over the newest
// values (>= the sample's largest), "recent:K" the K newest distinct values
// (an IN list), {in: [...]}, {gte: a, lt: b}, or a literal (equality).
package scenario

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/shardkey/shardkey"
)

// Spec is a parsed scenario file.
type Spec struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Shards      int    `yaml:"shards"`
	// Nodes, when set, places the shards as logical shards (slots) on
	// this many nodes, contiguously: reports give per-node work beside
	// per-slot work, and growth moves slots (as --slots/--nodes).
	Nodes        int           `yaml:"nodes"`
	Capacity     float64       `yaml:"capacity"`
	Seed         int64         `yaml:"seed"`
	Engine       string        `yaml:"engine"`
	Tables       []*TableSpec  `yaml:"tables"`
	Operations   []*OpSpec     `yaml:"operations"`
	Transactions []*TxnSpec    `yaml:"transactions"`
	Candidates   []string      `yaml:"candidates"`
	Variants     []VariantSpec `yaml:"variants"`
	// ParamSamples bounds the rows sampled for parameters that are not
	// enumerated exactly and for transaction instances (default 4096).
	ParamSamples int `yaml:"param_samples"`

	file string
	// lines holds the line of each top-level field's value, and of each
	// candidate key (by its text, "candidates:" + key; the base list's
	// and the variants'), for errors found after parsing.
	lines map[string]int
}

// line returns the line of a top-level field (or "candidates:" + key) in
// the spec, 0 when it is not there (a default, a built value).
func (s *Spec) line(field string) int { return s.lines[field] }

// TableSpec describes one table.
type TableSpec struct {
	Name      string        `yaml:"name"`
	Rows      int           `yaml:"rows"`
	Parent    string        `yaml:"parent"`
	PerParent string        `yaml:"per_parent"`
	Columns   []*ColumnSpec `yaml:"columns"`
	Line      int           `yaml:"-"`
	RowsLine  int           `yaml:"-"` // line of rows:, 0 when absent
}

// ColumnSpec describes one column and its generator.
type ColumnSpec struct {
	Name      string  `yaml:"name"`
	Type      string  `yaml:"type"`
	Gen       string  `yaml:"gen"`
	Distinct  int     `yaml:"distinct"`
	S         float64 `yaml:"s"`
	TopShare  float64 `yaml:"top_share"`
	Celebrity float64 `yaml:"celebrity"`
	Start     string  `yaml:"start"`
	Step      string  `yaml:"step"`
	Bucket    string  `yaml:"bucket"`
	Prefix    string  `yaml:"prefix"`
	Line      int     `yaml:"-"`
}

// OpSpec describes one operation.
type OpSpec struct {
	Name    string    `yaml:"name"`
	Table   string    `yaml:"table"`
	Kind    string    `yaml:"kind"`
	Rate    float64   `yaml:"rate"`
	Where   yaml.Node `yaml:"where"`
	Latency string    `yaml:"latency"`
	Line    int       `yaml:"-"`
}

// TxnSpec describes one transaction shape.
type TxnSpec struct {
	Name  string      `yaml:"name"`
	Rate  float64     `yaml:"rate"`
	Steps []*StepSpec `yaml:"steps"`
	Line  int         `yaml:"-"`
}

// StepSpec is one statement of a transaction.
type StepSpec struct {
	Table string    `yaml:"table"`
	Kind  string    `yaml:"kind"`
	Where yaml.Node `yaml:"where"`
	// Repeat is how many times the statement runs: N, or LO-HI for a
	// uniform count (TPC-C's 5-15 order lines).
	Repeat string `yaml:"repeat"`
	// Remote gives, per column, the probability (0..1) that this step
	// uses a different value from the one the transaction shares (TPC-C:
	// 1% of order lines from a remote warehouse's stock).
	Remote map[string]float64 `yaml:"remote"`
	// Vary names columns drawn anew for each repetition of the step (an
	// order's lines each have their own item) instead of the one value
	// the transaction shares; later steps keep the shared value.
	Vary []string `yaml:"vary"`
	// Prob is the probability (0..1, default 1) that the step runs at all.
	Prob *float64 `yaml:"prob"`
	Line int      `yaml:"-"`
}

// VariantSpec is a named change to the base spec.
type VariantSpec struct {
	Name        string               `yaml:"name"`
	Description string               `yaml:"description"`
	Set         map[string]yaml.Node `yaml:"set"`
	Candidates  []string             `yaml:"candidates"`
	Line        int                  `yaml:"-"`
}

// UnmarshalYAML methods record each element's line for error messages.
func (t *TableSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, TableSpec{}); err != nil {
		return err
	}
	type plain TableSpec
	if err := n.Decode((*plain)(t)); err != nil {
		return err
	}
	t.Line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "rows" {
			t.RowsLine = n.Content[i+1].Line
		}
	}
	return nil
}

func (c *ColumnSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, ColumnSpec{}); err != nil {
		return err
	}
	type plain ColumnSpec
	if err := n.Decode((*plain)(c)); err != nil {
		return err
	}
	c.Line = n.Line
	return nil
}

func (o *OpSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, OpSpec{}); err != nil {
		return err
	}
	type plain OpSpec
	if err := n.Decode((*plain)(o)); err != nil {
		return err
	}
	o.Line = n.Line
	return nil
}

func (t *TxnSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, TxnSpec{}); err != nil {
		return err
	}
	type plain TxnSpec
	if err := n.Decode((*plain)(t)); err != nil {
		return err
	}
	t.Line = n.Line
	return nil
}

func (s *StepSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, StepSpec{}); err != nil {
		return err
	}
	type plain StepSpec
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.Line = n.Line
	return nil
}

func (v *VariantSpec) UnmarshalYAML(n *yaml.Node) error {
	if err := knownFields(n, VariantSpec{}); err != nil {
		return err
	}
	type plain VariantSpec
	if err := n.Decode((*plain)(v)); err != nil {
		return err
	}
	v.Line = n.Line
	return nil
}

// Parse parses a spec; file names it in errors. Unknown fields are errors.
func Parse(data []byte, file string) (*Spec, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, shardkey.Errorf(file, 1, "", "empty scenario file")
	}
	// The YAML decoder says only "invalid leading UTF-8 octet" of bytes
	// that are not UTF-8 (a binary file, a Latin-1 file): name the line
	// and byte where they start.
	if !utf8.Valid(data) {
		line, off := 1, 0
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				off = i
				break
			}
			if data[i] == '\n' {
				line++
			}
			i += n
		}
		return nil, shardkey.Errorf(file, line, "", "not UTF-8 text (byte offset %d is not UTF-8), so not a YAML scenario file", off)
	}
	if line, col, r, ok := notYAMLChar(data); ok {
		return nil, shardkey.Errorf(file, line, "", "a control character, %U, at column %d: YAML allows none in a file (a binary file, or text with NUL bytes in it?)", r, col)
	}
	// The numbers first, so that a value a field cannot hold is named
	// by its field ("shards: ..."), not by the decoder's Go type.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlErr(file, err)
	}
	if len(root.Content) == 1 {
		if err := wholeNumbers(file, root.Content[0], reflect.TypeOf(Spec{}), ""); err != nil {
			return nil, err
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	s := &Spec{file: file}
	if err := dec.Decode(s); err != nil {
		return nil, yamlErr(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, shardkey.Errorf(file, extra.Line, "", "more than one YAML document")
	}
	if len(root.Content) == 1 {
		s.lines = fieldLines(root.Content[0])
	}
	return s, nil
}

// notYAMLChar finds the first character of UTF-8 data that YAML 1.2
// does not allow in a stream (its c-printable, section 5.1: tab, LF, CR,
// 0x20-0x7E, NEL, 0xA0-0xD7FF, 0xE000-0xFFFD, 0x10000-0x10FFFF; go-yaml's
// reader checks the same set and says only "control characters are not
// allowed"), and returns its line and column (1-based, in characters).
func notYAMLChar(data []byte) (line, col int, r rune, ok bool) {
	line, col = 1, 0
	for _, r := range string(data) {
		col++
		switch {
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
			r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff:
		default:
			return line, col, r, true
		}
	}
	return 0, 0, 0, false
}

// fieldLines returns the line of each top-level field's value of a spec
// document and of each candidate key (see Spec.lines).
func fieldLines(doc *yaml.Node) map[string]int {
	lines := map[string]int{}
	cands := func(seq *yaml.Node) {
		if seq.Kind != yaml.SequenceNode {
			return
		}
		for _, c := range seq.Content {
			if _, ok := lines["candidates:"+c.Value]; !ok {
				lines["candidates:"+c.Value] = c.Line
			}
		}
	}
	if doc.Kind != yaml.MappingNode {
		return lines
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		lines[k.Value] = v.Line
		switch k.Value {
		case "candidates":
			cands(v)
		case "variants":
			if v.Kind != yaml.SequenceNode {
				continue
			}
			for _, vs := range v.Content {
				if vs.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(vs.Content); j += 2 {
					if vs.Content[j].Value == "candidates" {
						cands(vs.Content[j+1])
					}
				}
			}
		}
	}
	return lines
}

// wholeNumbers returns an error for a number with a fraction (2.5) where
// the spec's field is an integer (shards, nodes, rows, distinct, ...): the
// YAML decoder truncates it to 2 without a word (go.yaml.in/yaml/v3,
// decode.go, unmarshal of a float into an int kind). It walks the document
// n against the Go type t; field is the path so far, for the message.
func wholeNumbers(file string, n *yaml.Node, t reflect.Type, field string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeOf(yaml.Node{}) {
		return nil // read by the builder, which checks its values
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // the decoder has said what is wrong
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			for j := 0; j < t.NumField(); j++ {
				f := t.Field(j)
				if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag == k.Value {
					name := k.Value
					if field != "" {
						name = field + "." + k.Value
					}
					if err := wholeNumbers(file, v, f.Type, name); err != nil {
						return err
					}
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				// An element by its name, as the builder's messages name
				// it (operations.NAME.rate); by its index when it has none.
				name := fmt.Sprintf("%s[%d]", field, i)
				if c.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(c.Content); j += 2 {
						if c.Content[j].Value == "name" && c.Content[j+1].Kind == yaml.ScalarNode {
							name = field + "." + c.Content[j+1].Value
						}
					}
				}
				if err := wholeNumbers(file, c, t.Elem(), name); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if err := wholeNumbers(file, n.Content[i+1], t.Elem(), field+"."+n.Content[i].Value); err != nil {
					return err
				}
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind != yaml.ScalarNode {
			return nil
		}
		// The largest value the field's type holds, plus one.
		below := strconv.FormatUint(1<<(t.Bits()-1), 10)
		if t.Kind() >= reflect.Uint {
			below = new(big.Int).Lsh(big.NewInt(1), uint(t.Bits())).String()
		}
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!int":
			var err error
			if t.Kind() >= reflect.Uint {
				_, err = strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, t.Bits())
			} else {
				_, err = strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, t.Bits())
			}
			if err != nil {
				return shardkey.Errorf(file, n.Line, field, "%s: want a whole number below %s", n.Value, below)
			}
		case "!!float":
			x, err := strconv.ParseFloat(n.Value, 64)
			if err != nil || x != math.Trunc(x) {
				return shardkey.Errorf(file, n.Line, field, "%s: want a whole number", n.Value)
			}
			if b, _ := new(big.Float).SetString(below); b != nil && big.NewFloat(math.Abs(x)).Cmp(b) >= 0 {
				return shardkey.Errorf(file, n.Line, field, "%s: want a whole number below %s", n.Value, below)
			}
		default:
			return shardkey.Errorf(file, n.Line, field, "%q: want a whole number", n.Value)
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode {
			return nil
		}
		switch n.ShortTag() {
		case "!!null", "!!int", "!!float":
			return nil
		}
		unit := ""
		if u := numberUnits[field]; u != "" {
			unit = " (" + u + ")"
		}
		return shardkey.Errorf(file, n.Line, field, "%q: want a number%s", n.Value, unit)
	}
	return nil
}

// numberUnits: the units of the spec's number fields, for messages.
var numberUnits = map[string]string{"capacity": "units of work per second"}

// yamlErr turns "yaml: line 3: msg" into file:3: msg.
func yamlErr(file string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	line := 0
	if strings.HasPrefix(msg, "line ") {
		var rest string
		if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
			if i := strings.Index(msg, ":"); i >= 0 {
				rest = strings.TrimSpace(msg[i+1:])
			}
			msg = rest
		}
	}
	return shardkey.Errorf(file, line, "", "%s", specWords.Replace(msg))
}

// specWords puts the decoder's Go type names in the spec's own words.
var specWords = strings.NewReplacer(
	"cannot unmarshal", "cannot read",
	"[]*scenario.TableSpec", "a list of tables", "[]*scenario.ColumnSpec", "a list of columns",
	"[]*scenario.OpSpec", "a list of operations", "[]*scenario.TxnSpec", "a list of transactions",
	"[]*scenario.StepSpec", "a list of steps", "[]scenario.VariantSpec", "a list of variants",
	"scenario.TableSpec", "a table", "scenario.ColumnSpec", "a column", "scenario.OpSpec", "an operation",
	"scenario.TxnSpec", "a transaction", "scenario.StepSpec", "a step", "scenario.VariantSpec", "a variant",
	"in type scenario.Spec", "at the top level (shardkey demo NAME --print shows the format)",
	"scenario.Spec", "a scenario",
	"[]string", "a list",
)

// ReadFile reads and parses a spec file, of at most shardkey.MaxSpecBytes.
func ReadFile(file string) (*Spec, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(&shardkey.BoundedReader{R: f, File: file, What: "a scenario spec", Max: shardkey.MaxSpecBytes})
	if err != nil {
		return nil, err
	}
	return Parse(data, file)
}

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins returns the names of the built-in scenarios, sorted.
func Builtins() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// BuiltinSource returns the YAML text of built-in scenario name.
func BuiltinSource(name string) ([]byte, error) {
	data, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (have: %s)", name, strings.Join(Builtins(), ", "))
	}
	return data, nil
}

// Builtin returns the parsed built-in scenario name.
func Builtin(name string) (*Spec, error) {
	data, err := BuiltinSource(name)
	if err != nil {
		return nil, err
	}
	return Parse(data, name+".yaml")
}

// Variant returns the variant named name, or an error listing them.
func (s *Spec) Variant(name string) (*VariantSpec, error) {
	var names []string
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i], nil
		}
		names = append(names, s.Variants[i].Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("scenario %s has no variants", s.Name)
	}
	return nil, fmt.Errorf("scenario %s has no variant %q (have: %s)", s.Name, name, strings.Join(names, ", "))
}

// knownFields rejects mapping keys that are not yaml fields of v's type:
// the decoder's KnownFields does not reach inside custom unmarshalers.
func knownFields(n *yaml.Node, v any) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	t := reflect.TypeOf(v)
	var names []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ok := false
		for _, name := range names {
			ok = ok || name == k.Value
		}
		if !ok {
			return fmt.Errorf("line %d: field %s not found (want one of %s)", k.Line, k.Value, strings.Join(names, ", "))
		}
	}
	return nil
}
