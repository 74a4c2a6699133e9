package watch

import (
	"encoding/json"
	"io"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey/sim"
)

// TestWatcher_Instant: a window that is one instant (every statement at
// one timestamp: Span.Seconds 0) has no duration, so no rate: seconds,
// requests and work per second (overall, per shard, per shape, per top
// key) are null in JSON and left out of the Prometheus scrape (not 0, not
// NaN). Its shares and ratios are of the statements counted, worked by
// hand: 24 reads, 12 of id 7, one each of ids 13..20, 4 scans by other;
// under range(id, bounds=[10]) on 2 shards, shard 0 (id < 10) does 12 + 4
// (the scans ask both shards), shard 1 8 + 4: max/mean 16 / 14; id 7's
// share 12/24 = 0.5; the scans' scatter share 4/24; fan-out (20*1 +
// 4*2)/24. Its only event is hot_key on 7 at 0.5 (above 3 times the even
// 20/24/9 = 9.26%: 27.8%), a share; work_ratio 1.14 is below 1.5.
func TestWatcher_Instant(t *testing.T) {
	ids := []int64{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 13, 14, 15, 16, 17, 18, 19, 20}
	const design = "range(id, bounds=[10])"
	t0 := time.Date(2026, 11, 30, 23, 5, 0, 0, time.UTC)
	for _, seconds := range []float64{0, 60} {
		wt, err := New(Options{Designs: []string{design}, Sim: sim.Options{Shards: 2}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := wt.Add(Span{Start: t0, End: t0.Add(time.Minute), Seconds: seconds, Statements: 24}, window(ids, 4))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		js := string(b)
		d := r.Designs[0]
		if !close(d.WorkRatio, 16.0/14) || !close(d.ScatterShare, 4.0/24) || !close(d.FanoutMean, 28.0/24) || d.TopKeys[0].Key != "7" || !close(d.TopKeys[0].Share, 0.5) {
			t.Errorf("seconds %g: work ratio %v, scatter %v, fan-out %v, top key %+v; want 16/14, 4/24, 28/24, 7 at 0.5", seconds, d.WorkRatio, d.ScatterShare, d.FanoutMean, d.TopKeys[0])
		}
		if len(r.Events) != 1 || r.Events[0].Type != "hot_key" || r.Events[0].Key != "7" || !close(r.Events[0].Value, 0.5) {
			t.Errorf("seconds %g: events %+v; want hot_key 7 at 0.5 only", seconds, r.Events)
		}
		nulls := []string{`"seconds":null`, `"requests_per_s":null`, `"work_per_s":null`, `"shard_work":null`, `"max_shard_work":null`, `"mean_shard_work":null`}
		m := NewMetrics()
		m.Update(r)
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/metrics", nil))
		body, _ := io.ReadAll(rec.Body)
		scrape := string(body)
		rates := []string{"shardkey_window_seconds ", "shardkey_requests_per_second{", "shardkey_work_per_second{", "shardkey_shard_work_per_second{", "shardkey_shape_requests_per_second{"}
		if want := `shardkey_work_max_to_mean_ratio{design="range(id, bounds=[10])"} 1.1428571428571428`; !strings.Contains(scrape, want) {
			t.Errorf("seconds %g: scrape lacks %q:\n%s", seconds, want, scrape)
		}
		if seconds > 0 {
			// A window with a duration: the workload's rates (the
			// reader divides counts by the seconds; here they are given).
			if !close(float64(d.RequestsPerS), 24) || !close(float64(d.MaxShardWork), 16) || r.Instant {
				t.Errorf("seconds %g: requests/s %v, max shard work %v; want 24, 16", seconds, d.RequestsPerS, d.MaxShardWork)
			}
			for _, s := range nulls {
				if strings.Contains(js, s) {
					t.Errorf("seconds %g: JSON has %s", seconds, s)
				}
			}
			for _, s := range rates {
				if !strings.Contains(scrape, s) {
					t.Errorf("seconds %g: scrape lacks %s", seconds, s)
				}
			}
			continue
		}
		if !r.Instant {
			t.Error("one instant: Instant false")
		}
		for _, s := range nulls {
			if !strings.Contains(js, s) {
				t.Errorf("one instant: JSON lacks %s:\n%s", s, js)
			}
		}
		// Each shape's and top key's requests/s too: 2 shapes, 9 keys,
		// the design's own: 12 nulls.
		if n := strings.Count(js, `"requests_per_s":null`); n != 12 {
			t.Errorf("one instant: %d requests_per_s null; want 12 (design, 2 shapes, 9 top keys):\n%s", n, js)
		}
		for _, s := range rates {
			if strings.Contains(scrape, s) {
				t.Errorf("one instant: scrape has %s (a rate of no duration):\n%s", s, scrape)
			}
		}
		if strings.Contains(scrape, "NaN") {
			t.Errorf("one instant: scrape has NaN:\n%s", scrape)
		}
		if math.IsNaN(d.WorkRatio) {
			t.Error("one instant: work ratio unknown")
		}
	}
}

// TestWatcher_InstantTooFew: one statement at one instant (a one-line
// log) is too few requests to tell a finding from chance, as a partial
// window with as few is: one request is all of a shard's work (max/mean
// 2.00 on 2 shards) and all of its key's share, so events would be
// chance; none is raised and a warning says why (fresh-clone review:
// watch raised work_ratio 8.00 from one statement).
func TestWatcher_InstantTooFew(t *testing.T) {
	wt, err := New(Options{Designs: []string{"range(id, bounds=[10])"}, Sim: sim.Options{Shards: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 23, 5, 0, 0, time.UTC)
	r, err := wt.Add(Span{Start: t0, End: t0.Add(time.Minute), Seconds: 0, Statements: 1}, window([]int64{7}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 0 {
		t.Errorf("events %+v from one request; want none", r.Events)
	}
	said := false
	for _, w := range r.Warnings {
		said = said || strings.Contains(w, "one instant (every statement of the window at one time) with 1 request(s), too few to raise events")
	}
	if !said {
		t.Errorf("warnings %q; want the one instant said too few", r.Warnings)
	}
}
