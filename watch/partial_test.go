package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey/sim"
)

// TestWatcher_PartialQuiet: a window the log covers only part of
// (Span.Partial: the trailing window a log ends inside) is marked partial,
// and raises no event when it has too few requests for a finding to be
// told from chance. Worked by hand under range(id, bounds=[10]) on 2
// shards:
//
//  1. partial, 1 request (id 4161, shard 1): n x KeyHigh = 0.05 < 1, so
//     quiet: no event, a warning. Judged, it would raise work_ratio (1
//     request on 2 shards: max/mean 1/0.5 = 2 > 1.5), as the same window
//     whole (not partial) does. (Not hot_key: a lone key is its own even
//     share, 100%, and 3 times that is never reached.)
//  2. after the quiet window, a whole window of 5 requests of 4161:
//     max/mean 2 again, and work_ratio is raised (the quiet window did
//     not mark the design above its threshold, which would hold it back
//     until the ratio fell).
//  3. partial, 40 requests: 20 of id 7, one each of ids 11..30: 40 x
//     0.05 = 2 >= 1, and 40 requests at random on 2 shards give a
//     max/mean of about 1.13 < 1.5: judged. 7 takes 20/40 = 50%, above
//     3 x the even share (40/40/21 = 4.76%: 14.3%): hot_key; shards 0
//     and 1 each do 20: max/mean 1, no work_ratio.
func TestWatcher_PartialQuiet(t *testing.T) {
	const design = "range(id, bounds=[10])"
	t0 := time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC)
	sp := Span{Start: t0, End: t0.Add(20 * time.Second), Seconds: 1, Statements: 1, Partial: true}
	types := func(r *Report) string {
		var ts []string
		for _, e := range r.Events {
			ts = append(ts, e.Type)
		}
		return strings.Join(ts, ",")
	}
	// The same one-request window, whole: both events.
	wt, err := New(Options{Designs: []string{design}, Sim: sim.Options{Shards: 2}})
	if err != nil {
		t.Fatal(err)
	}
	whole := sp
	whole.Partial = false
	r, err := wt.Add(whole, window([]int64{4161}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := types(r); got != "work_ratio" || r.Partial {
		t.Errorf("whole window of 1 request: events %q, partial %v; want work_ratio, not partial", got, r.Partial)
	}

	wt, err = New(Options{Designs: []string{design}, Sim: sim.Options{Shards: 2}})
	if err != nil {
		t.Fatal(err)
	}
	r, err = wt.Add(sp, window([]int64{4161}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 0 || !r.Partial || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "partial window") || !strings.Contains(r.Warnings[0], "1 request(s), too few to raise events (fewer than 1 / 0.05 = 20") {
		t.Errorf("partial window of 1 request: events %q, partial %v, warnings %q; want none, partial, a too-few warning", types(r), r.Partial, r.Warnings)
	}
	if !close(r.Designs[0].WorkRatio, 2) || !close(float64(r.Designs[0].RequestsPerS), 1) {
		t.Errorf("partial window of 1 request: work ratio %v, requests/s %v; want 2, 1 (its figures are still reported)", r.Designs[0].WorkRatio, r.Designs[0].RequestsPerS)
	}
	r, err = wt.Add(Span{Start: t0.Add(20 * time.Second), End: t0.Add(40 * time.Second), Seconds: 20, Statements: 5}, window([]int64{4161, 4161, 4161, 4161, 4161}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := types(r); got != "work_ratio" || !close(r.Events[0].Value, 2) {
		t.Errorf("whole window after the quiet one: events %+v; want work_ratio at 2", r.Events)
	}

	wt, err = New(Options{Designs: []string{design}, Sim: sim.Options{Shards: 2}})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for range 20 {
		ids = append(ids, 7)
	}
	for id := int64(11); id <= 30; id++ {
		ids = append(ids, id)
	}
	sp.Statements = 40
	r, err = wt.Add(sp, window(ids, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := types(r); got != "hot_key" || r.Events[0].Key != "7" || !close(r.Events[0].Value, 0.5) || !close(r.Designs[0].WorkRatio, 1) || len(r.Warnings) != 0 {
		t.Errorf("partial window of 40 requests: events %+v, work ratio %v, warnings %q; want hot_key 7 at 0.5, 1, none", r.Events, r.Designs[0].WorkRatio, r.Warnings)
	}
}
