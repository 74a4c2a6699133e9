package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// placement is one line of `place --format json`. Shard and Hash are null
// for a value outside the engine's domain (Vitess's DestinationNone, a
// NULL key), with the reason.
type placement struct {
	Value  string          `json:"value"`
	Hash   *partition.Hash `json:"hash"`
	Shard  *int            `json:"shard"`
	Server string          `json:"server,omitempty"`     // a named pool's server (ketama, ring)
	Range  *[2]int32       `json:"hash_range,omitempty"` // Citus: the shard interval's min and max hash
	// ShardKey is the shard key MongoDB stores under a pattern (-k), its
	// hashed field as NumberLong; Hash is then that hashed value.
	ShardKey string `json:"shard_key,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func runPlace(e *env, args []string) error {
	fs := flag.NewFlagSet("place", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	engine := fs.String("engine", "generic", "`engine`: "+strings.Join(partition.Names(), ", ")+" (options in parentheses: 'ketama(servers=h1:11211:600,h2:11211:300)')")
	shards := fs.Int("shards", 8, "number of `shards` (partitions, masters, tablets, ...)")
	typ := fs.String("type", "", "column `type` of the values: int16, int32, int64, uint64, float32, float64, text, bytes (hex), uuid, timestamp,\nobjectid (24 hex digits), date (ms since the epoch or RFC 3339), bool, extjson (MongoDB Extended JSON v2);\ncomma-separated for a composite key, whose values are then JSON arrays ([11, \"abc\"]) (default: int64 for integers, else text)")
	id := fs.String("id", "", "document `id` for an Elasticsearch index with routing_partition_size > 1 (each VALUE is the _routing)")
	format := fs.String("format", "table", "output `format`: table or json")
	pattern := fs.String("k", "", "a MongoDB shard key `pattern`, {a: 1, b: \"hashed\"} (--engine mongodb; values as JSON arrays),\nor range({a: 1, b: \"hashed\"}, bounds=[...]) with the split points of a ranged prefix")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey place --engine E [--shards N] [--type T] [--format json] VALUE ...
       shardkey place --engine mongodb -k '{a: 1, b: "hashed"}' [--shards N] '[A, B]' ...

Shows where each value lands on engine E: the engine's own hash value
(Redis slot, Cassandra token, MongoDB hashed int64, Vitess keyspace id,
Kafka murmur2, PostgreSQL/Citus int32 hash, ...) and the 0-based shard.
With no VALUE, values are read from standard input, one a line. Put
negative values after "--" (shardkey place --engine redis -- -5), or they
read as flags.

Flags:
`)
		fs.PrintDefaults()
	}
	vals, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	shardsSet := false
	fs.Visit(func(f *flag.Flag) { shardsSet = shardsSet || f.Name == "shards" })
	if *shards < 1 || *shards > shardkey.MaxPlaceShards {
		return usageErr("--shards %d: must be in 1..%d", *shards, shardkey.MaxPlaceShards)
	}
	if *format != "table" && *format != "json" {
		return usageErr("--format %q: want table or json", *format)
	}
	eng, err := partition.Lookup(*engine)
	if err != nil {
		return usageErr("--engine: %v", err)
	}
	var types []shardkey.Type
	if *typ != "" {
		if types, err = shardkey.ParseTypes(*typ); err != nil {
			return usageErr("--type: %v", err)
		}
	}
	var servers []string
	if p, ok := eng.(partition.Pool); ok && p.ServerNames() != nil {
		servers = p.ServerNames()
		if !shardsSet {
			*shards = len(servers)
		}
	}
	es, partitioned := eng.(partition.Elasticsearch)
	partitioned = partitioned && es.Partitioned()
	switch {
	case partitioned && *id == "":
		return usageErr("--engine %s: a partitioned index routes by _routing and _id: give the document's --id", eng.Name())
	case !partitioned && *id != "":
		return usageErr("--id is the document id of an Elasticsearch index with routing_partition_size > 1, not of %s", eng.Name())
	}
	layout, err := eng.Layout(*shards)
	if err != nil {
		return usageErr("--shards: %v", err)
	}
	if len(vals) == 0 {
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		n := 0
		for sc.Scan() {
			n++
			if line := strings.TrimSpace(sc.Text()); line != "" {
				vals = append(vals, line)
			}
		}
		if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
			return shardkey.Errorf("standard input", n+1, "", "a value longer than 1 MiB")
		} else if err != nil {
			return fmt.Errorf("reading standard input: %w", err)
		}
		if len(vals) == 0 {
			return usageErr("no values: give them as arguments or on standard input")
		}
	}
	var out []placement
	if *pattern != "" {
		if eng.Name() != "mongodb" {
			return usageErr("-k takes a MongoDB shard key pattern: use --engine mongodb")
		}
		p, err := mongoPattern(*pattern, types)
		if err != nil {
			return err
		}
		if out, err = placePattern(p, *shards, types, vals); err != nil {
			return err
		}
		return writePatternPlacements(e, out, p, *pattern, *shards, *format)
	}
	for i, v := range vals {
		key, err := parseKey(v, types)
		if err != nil {
			return fmt.Errorf("value %d %q: %w", i+1, v, err)
		}
		if partitioned {
			key = append(key, shardkey.TextValue(*id))
		}
		h, err := eng.Hash(key)
		var p uint64
		if err == nil {
			p, err = eng.Point(key)
		}
		if errors.Is(err, partition.ErrNoDestination) {
			out = append(out, placement{Value: v, Reason: engineErr(eng.Name(), err)})
			continue
		}
		if err != nil {
			return fmt.Errorf("value %d %q: %s", i+1, v, engineErr(eng.Name(), err))
		}
		sh := layout.Shard(p)
		pl := placement{Value: v, Hash: &h, Shard: &sh}
		if servers != nil {
			pl.Server = servers[sh]
		}
		if cl, ok := layout.(*partition.CitusLayout); ok {
			lo, hi := cl.HashRange(cl.ShardIndex(p))
			pl.Range = &[2]int32{lo, hi}
		}
		out = append(out, pl)
	}
	if *format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	_, citus := layout.(*partition.CitusLayout)
	head := fmt.Sprintf("value\thash (%s)\tshard of %d", eng.Name(), *shards)
	switch {
	case servers != nil:
		head += "\tserver"
	case citus:
		head += "\thash range"
	}
	fmt.Fprintln(tw, head)
	for _, p := range out {
		if p.Shard == nil {
			fmt.Fprintf(tw, "%s\t-\tnone: %s\n", p.Value, p.Reason)
			continue
		}
		line := fmt.Sprintf("%s\t%s\t%d", p.Value, p.Hash, *p.Shard)
		switch {
		case p.Server != "":
			line += "\t" + p.Server
		case p.Range != nil:
			line += fmt.Sprintf("\t[%d, %d]", p.Range[0], p.Range[1])
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// parseKey parses a value (or, for a composite type list, a JSON array of
// values, or the older comma-separated values) into key parts. Without
// types, integers are int64, else text.
func parseKey(s string, types []shardkey.Type) ([]shardkey.Value, error) {
	if len(types) > 1 && strings.HasPrefix(strings.TrimSpace(s), "[") {
		return shardkey.ParseKey(s, types)
	}
	if len(types) > 1 {
		parts := strings.Split(s, ",")
		if len(parts) != len(types) {
			return nil, fmt.Errorf("compound key of %d types needs %d comma-separated values, got %d", len(types), len(types), len(parts))
		}
		key := make([]shardkey.Value, len(parts))
		for i, p := range parts {
			v, err := shardkey.ParseValue(strings.TrimSpace(p), types[i])
			if err != nil {
				return nil, err
			}
			key[i] = v
		}
		return key, nil
	}
	t := shardkey.Text
	if len(types) == 1 {
		t = types[0]
	} else if shardkey.InferType([]string{s}) == shardkey.Int64 {
		t = shardkey.Int64
	} else if v := strings.ReplaceAll(s, " ", ""); strings.HasPrefix(v, `{"$oid":`) || strings.HasPrefix(v, "ObjectId(") {
		// Written as MongoDB writes an ObjectId (Extended JSON, or the
		// shell's constructor), it is one, as the JSONL reader reads it;
		// hashed as text it would land on another shard silently.
		t = shardkey.ObjectID
	}
	if s == "" && t != shardkey.Text {
		return nil, fmt.Errorf("empty value")
	}
	v, err := shardkey.ParseValue(s, t)
	if err != nil {
		return nil, err
	}
	return []shardkey.Value{v}, nil
}

// engineErr is err with the engine's name in front once (engines name
// themselves in some of their errors).
func engineErr(name string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, name+": ") {
		return msg
	}
	return name + ": " + msg
}
