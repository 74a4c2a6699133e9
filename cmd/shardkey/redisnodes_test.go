package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// keySlot is Redis Cluster's CLUSTER KEYSLOT of a key without a hash
// tag, written from the algorithm as Redis documents it, not from the
// redis engine: CRC16-XMODEM (poly 0x1021, init 0, no reflection, no
// final xor; check "123456789" = 0x31C3) of the key's bytes, mod 16384.
func keySlot(key string) int {
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// TestKeySlotVectors pins the test's own CRC16 to Redis's published
// values: CRC-16/XMODEM check value 0x31C3 for "123456789" (Redis
// cluster spec, src/crc16.c), and CLUSTER KEYSLOT "1" = 9842 and
// "123456789" = 12739 (= 0x31C3) from redis-server (the vectors file
// partition/testdata/vectors/redis_cluster.json lists them).
func TestKeySlotVectors(t *testing.T) {
	for key, want := range map[string]int{"123456789": 0x31C3, "1": 9842} {
		if got := keySlot(key); got != want {
			t.Errorf("keySlot(%q) = %d; want %d", key, got, want)
		}
	}
}

// ballsRatio is E[max]/mean for k equal keys hashed uniformly into n
// bins, computed exactly, independently of sim.ExpectedMaxLoadRatio (a
// Poissonization with an Edgeworth fallback): P(max <= c) is k!/n^k times
// the x^k coefficient of (sum_{j<=c} x^j/j!)^n (exponential generating
// functions: the ways to put k labelled keys in n bins of at most c), the
// power taken by repeated squaring of polynomials cut at degree k, and
// E[max] = sum over c >= 0 of 1 - P(max <= c).
func ballsRatio(k, n int) float64 {
	mul := func(a, b []float64) []float64 {
		out := make([]float64, k+1)
		for i, x := range a {
			for j, y := range b {
				if i+j <= k {
					out[i+j] += x * y
				}
			}
		}
		return out
	}
	// n^k / k!, in logs.
	logScale := float64(k)*math.Log(float64(n)) - lgamma(k+1)
	emax := 0.0
	for c := 0; c < k; c++ {
		base := make([]float64, k+1)
		f := 1.0
		for j := 0; j <= c && j <= k; j++ {
			if j > 0 {
				f /= float64(j)
			}
			base[j] = f
		}
		pow := make([]float64, k+1)
		pow[0] = 1
		for e := n; e > 0; e >>= 1 {
			if e&1 == 1 {
				pow = mul(pow, base)
			}
			base = mul(base, base)
		}
		emax += 1 - math.Exp(math.Log(pow[k])-logScale)
	}
	return emax / (float64(k) / float64(n))
}

func lgamma(x int) float64 { v, _ := math.Lgamma(float64(x)); return v }

func maxOverMean(xs []float64) float64 {
	mx, sum := 0.0, 0.0
	for _, x := range xs {
		mx, sum = math.Max(mx, x), sum+x
	}
	return mx / (sum / float64(len(xs)))
}

// TestRedisNodesFiguresPerNode: TPC-C's 8 warehouses keyed hash(w_id) on
// Redis Cluster's 16384 slots over 8 masters. The headline (work per
// node, work_per "node") sat beside a per-slot load ratio (about 11,648x:
// 8 warehouses' rows in 8 of 16384 slots) and a per-slot perfect-hash
// ratio, 2051.50x, printed as "a perfect hash of this many equal keys
// gives 2051.50x"; the nodes line called the nodes' work ratio "per
// slot". Now the JSON's load_ratio and expected_max_load_ratio are the
// nodes' (load_per "node"), the slots' kept as slot_load_ratio and
// slot_expected_max_load_ratio, and the text labels each.
//
// Expected values, derived here: the nodes' loads are shard_load summed
// over each master's slots (redis-cli --cluster create gives 8 masters
// 2048 slots each: node k has slots [2048k, 2048k+2048)); the perfect hash
// of 8 equal keys over 8 bins and over 16384 (ballsRatio: 2.597... and
// 2051.498...).
func TestRedisNodesFiguresPerNode(t *testing.T) {
	wl := "../../scenario/benchmarks/tpcc.yaml"
	args := []string{"score", "--workload", wl, "--engine", "redis", "--slots", "16384", "--nodes", "8", "-k", "hash(w_id)"}
	code, out, errs := runCmd(t, "", append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Candidates []struct {
			WorkPer                  string    `json:"work_per"`
			LoadPer                  string    `json:"load_per"`
			ShardLoad                []float64 `json:"shard_load"`
			ShardWork                []float64 `json:"shard_work"`
			LoadRatio                float64   `json:"load_ratio"`
			SlotLoadRatio            *float64  `json:"slot_load_ratio"`
			ExpectedMaxLoadRatio     float64   `json:"expected_max_load_ratio"`
			SlotExpectedMaxLoadRatio *float64  `json:"slot_expected_max_load_ratio"`
			Cardinality              int       `json:"cardinality"`
			Tables                   []struct {
				Table                    string   `json:"table"`
				Cardinality              int      `json:"cardinality"`
				ExpectedMaxLoadRatio     float64  `json:"expected_max_load_ratio"`
				SlotExpectedMaxLoadRatio *float64 `json:"slot_expected_max_load_ratio"`
			} `json:"tables"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	c := r.Candidates[0]
	if c.WorkPer != "node" || c.LoadPer != "node" {
		t.Errorf("work_per %q, load_per %q; want both \"node\"", c.WorkPer, c.LoadPer)
	}
	if len(c.ShardLoad) != 16384 || c.Cardinality != 8 {
		t.Fatalf("%d slots' loads, cardinality %d; want 16384 slots, 8 warehouses", len(c.ShardLoad), c.Cardinality)
	}
	node := make([]float64, 8)
	for s, x := range c.ShardLoad {
		node[s/2048] += x
	}
	if want := maxOverMean(node); math.Abs(c.LoadRatio-want) > 1e-9*want {
		t.Errorf("load_ratio %v; want the nodes' %v", c.LoadRatio, want)
	}
	if want := maxOverMean(c.ShardLoad); c.SlotLoadRatio == nil || math.Abs(*c.SlotLoadRatio-want) > 1e-9*want {
		t.Errorf("slot_load_ratio %v; want the slots' %v", c.SlotLoadRatio, want)
	}
	perNode, perSlot := ballsRatio(8, 8), ballsRatio(8, 16384)
	if math.Abs(perNode-2.5972) > 1e-3 || math.Abs(perSlot-2051.50) > 0.01 {
		t.Fatalf("ballsRatio: 8 keys over 8 bins %v, over 16384 %v", perNode, perSlot)
	}
	if math.Abs(c.ExpectedMaxLoadRatio-perNode) > 1e-6 {
		t.Errorf("expected_max_load_ratio %v; want 8 keys over 8 nodes: %v", c.ExpectedMaxLoadRatio, perNode)
	}
	if c.SlotExpectedMaxLoadRatio == nil || math.Abs(*c.SlotExpectedMaxLoadRatio-perSlot) > 1e-6*perSlot {
		t.Errorf("slot_expected_max_load_ratio %v; want 8 keys over 16384 slots: %v", c.SlotExpectedMaxLoadRatio, perSlot)
	}
	for _, tk := range c.Tables {
		if tk.Cardinality != 8 {
			continue
		}
		if math.Abs(tk.ExpectedMaxLoadRatio-perNode) > 1e-6 || tk.SlotExpectedMaxLoadRatio == nil || math.Abs(*tk.SlotExpectedMaxLoadRatio-perSlot) > 1e-6*perSlot {
			t.Errorf("table %s: expected_max_load_ratio %v, slot_expected_max_load_ratio %v; want %v per node, %v per slot", tk.Table, tk.ExpectedMaxLoadRatio, tk.SlotExpectedMaxLoadRatio, perNode, perSlot)
		}
	}

	code, text, errs := runCmd(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := fmt.Sprintf("a perfect hash of this many equal keys over 8 nodes gives %.2fx (over the 16384 slots: %.2fx)", perNode, perSlot)
	if !strings.Contains(text, "key w_id on warehouse: ") || strings.Count(text, want) < 8 {
		t.Errorf("key lines do not read %q:\n%s", want, text)
	}
	// The nodes line: per node the nodes', per slot the slots' own.
	m := regexp.MustCompile(`max/mean per node: work ([0-9.]+)x, load ([0-9.]+)x \(per slot: work ([0-9.]+)x, load ([0-9.]+)x\)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no line \"max/mean per node: work Wx, load Lx (per slot: work wx, load lx)\":\n%s", text)
	}
	nodeWork := make([]float64, 8)
	for s, x := range c.ShardWork {
		nodeWork[s/2048] += x
	}
	for i, want := range []float64{maxOverMean(nodeWork), maxOverMean(node), maxOverMean(c.ShardWork), maxOverMean(c.ShardLoad)} {
		if got, _ := strconv.ParseFloat(m[i+1], 64); math.Abs(got-want) > 0.006 {
			t.Errorf("nodes line %q: figure %d is %v; want %.2f", m[0], i+1, got, want)
		}
	}
	if !strings.Contains(text, "load ratio (nodes)") || !strings.Contains(text, "cross-slot txns") {
		t.Errorf("score table's heads do not say the load ratio is the nodes' and transactions count slots:\n%s", text)
	}
}

// TestRedisPlacementOwnSlots: the advice's place-values fix for TPC-C's
// warehouses on 16384 slots over 8 masters names, in JSON, each value's
// own hash slot (placement[].slot: CLUSTER KEYSLOT of the value, "1" in
// 9842), not only the stand-in slot the re-simulation maps it to
// ("shard": 4096 for w_id 1, a slot no w_id key hashes to, which a script
// running CLUSTER SETSLOT from the JSON would move); the
// --write-directories file says in '#' comment lines what its shard
// column is and lists each value's own slot and node; and the file, with
// its comments, still re-scores (the printed command) to the fix's
// figures.
func TestRedisPlacementOwnSlots(t *testing.T) {
	wl := "../../scenario/benchmarks/tpcc.yaml"
	dir := t.TempDir()
	code, out, errs := runCmd(t, "", "advise", "--workload", wl, "--engine", "redis", "--slots", "16384", "--nodes", "8",
		"--format", "json", "--bootstrap", "0", "--sweep", "", "--write-directories", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Candidates []struct {
			Key   string `json:"key"`
			Fixes []struct {
				Kind          string `json:"kind"`
				Key           string `json:"key"`
				DirectoryFile string `json:"directory_file"`
				Placement     []struct {
					Value string `json:"value"`
					Shard int    `json:"shard"`
					Node  *int   `json:"node"`
					Slot  *int   `json:"slot"`
				} `json:"placement"`
				After struct {
					MaxShardWork float64 `json:"max_shard_work"`
					WorkPerS     float64 `json:"work_per_s"`
				} `json:"after"`
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range adv.Candidates {
		for _, f := range c.Fixes {
			if f.Kind != "place-values" || f.DirectoryFile != "w_id-placement.csv" {
				continue
			}
			checked++
			file, err := os.ReadFile(filepath.Join(dir, f.DirectoryFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(file), "# w_id,shard: the shard column is a slot of the target node that the re-simulation\n") {
				t.Errorf("%s does not open with a comment on its shard column:\n%s", f.DirectoryFile, file)
			}
			if len(f.Placement) != 8 {
				t.Fatalf("%d values placed; want the 8 warehouses", len(f.Placement))
			}
			for _, p := range f.Placement {
				want := keySlot(p.Value)
				if p.Slot == nil || *p.Slot != want {
					t.Errorf("w_id %s: slot %v; CLUSTER KEYSLOT %q is %d", p.Value, p.Slot, p.Value, want)
					continue
				}
				if p.Node == nil || *p.Node != p.Shard/2048 {
					t.Errorf("w_id %s: node %v; its stand-in slot %d is on node %d", p.Value, p.Node, p.Shard, p.Shard/2048)
					continue
				}
				if line := fmt.Sprintf("#   %s: slot %d -> node %d\n", p.Value, want, *p.Node); !strings.Contains(string(file), line) {
					t.Errorf("%s lacks %q:\n%s", f.DirectoryFile, line, file)
				}
			}
			if p := f.Placement[0]; p.Value != "1" || p.Slot == nil || *p.Slot != 9842 {
				t.Errorf("placement[0] %+v; want w_id 1 in slot 9842 (CLUSTER KEYSLOT 1)", p)
			}
			// The printed command re-scores the commented file.
			for _, line := range strings.Split(errs, "\n") {
				if !strings.Contains(line, f.DirectoryFile+"; re-score it with: ") && !strings.Contains(line, "/"+f.DirectoryFile+":") {
					continue
				}
				_, cmd, ok := strings.Cut(line, "; re-score it with: ")
				if !ok {
					continue
				}
				words := shellWords(cmd)
				code, sout, serrs := runCmd(t, "", append(words[1:], "--format", "json")...)
				if code != 0 {
					t.Fatalf("%q: exit %d: %s", cmd, code, serrs)
				}
				var sc struct {
					Candidates []struct {
						MaxShardWork float64 `json:"max_shard_work"`
						WorkPerS     float64 `json:"work_per_s"`
					} `json:"candidates"`
				}
				if err := json.Unmarshal([]byte(sout), &sc); err != nil {
					t.Fatal(err)
				}
				if got := sc.Candidates[0]; got.MaxShardWork != f.After.MaxShardWork || got.WorkPerS != f.After.WorkPerS {
					t.Errorf("%q: busiest %v/s, work %v/s; the fix's %v/s, %v/s", cmd, got.MaxShardWork, got.WorkPerS, f.After.MaxShardWork, f.After.WorkPerS)
				}
				checked++
			}
		}
	}
	if checked < 2 {
		t.Fatalf("no w_id place-values fix with a re-score command checked (%d):\n%s", checked, errs)
	}
}
