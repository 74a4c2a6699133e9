package watch

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics exposes the last closed window's figures to Prometheus, with
// the Prometheus Go client library. Names follow Prometheus's naming
// conventions (https://prometheus.io/docs/practices/naming/): a
// shardkey_ prefix, base units (seconds), _total on counters, _ratio and
// _share on unitless 0..1 figures. Gauges hold the last window's value;
// label sets that leave the report (a key that drops out of the top keys)
// disappear from the next scrape rather than holding a stale value.
//
//	shardkey_window_end_timestamp_seconds                 end of the last closed window (Unix time)
//	shardkey_window_seconds                               the time its rates are per
//	shardkey_windows_total                                windows closed
//	shardkey_requests_per_second{design}                  requests/s (operation instances)
//	shardkey_work_per_second{design}                      units of work/s over all shards
//	shardkey_shard_work_per_second{design,shard}          units of work/s on each shard (0-based)
//	shardkey_work_max_to_mean_ratio{design}               max/mean of per-shard work (idle shards in the mean)
//	shardkey_node_work_per_second{design,node}            with slots over nodes: units of work/s on each node
//	shardkey_scatter_share{design}                        share of requests sent to every shard
//	shardkey_shape_scatter_share{design,shape}            a statement shape's scatter-gathers over all requests
//	shardkey_shape_requests_per_second{design,shape}      a shape's requests/s
//	shardkey_cross_shard_txn_ratio{design}                share of transactions touching more than one shard
//	shardkey_rolled_back_cross_shard_txn_ratio{design}    the same share of rolled-back transactions (absent when none)
//	shardkey_top_key_share{design,key}                    a top key's share of requests
//	shardkey_events_total{design,type}                    events raised
//
// When the last window is one instant (Report.Instant), its rates are
// unknown and left out: shardkey_window_seconds and the _per_second
// series are absent from the scrape (not NaN, not 0); its ratios and
// shares are sent.
//
// It is safe for concurrent use (Update from the reader, Collect from
// scrapes).
type Metrics struct {
	mu     sync.Mutex
	last   *Report
	n      float64
	events map[[2]string]float64
}

var _ prometheus.Collector = (*Metrics)(nil)

// NewMetrics returns an empty collector.
func NewMetrics() *Metrics { return &Metrics{events: map[[2]string]float64{}} }

// Update makes r the window the gauges show and counts its events.
func (m *Metrics) Update(r *Report) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = r
	m.n++
	for _, e := range r.Events {
		m.events[[2]string{e.Design, e.Type}]++
	}
}

var (
	dWindowEnd   = prometheus.NewDesc("shardkey_window_end_timestamp_seconds", "End of the last closed window, Unix time.", nil, nil)
	dWindowSecs  = prometheus.NewDesc("shardkey_window_seconds", "Seconds the last window's rates are per.", nil, nil)
	dWindows     = prometheus.NewDesc("shardkey_windows_total", "Windows closed.", nil, nil)
	dRequests    = prometheus.NewDesc("shardkey_requests_per_second", "Requests (operation instances) per second in the last window.", []string{"design"}, nil)
	dWork        = prometheus.NewDesc("shardkey_work_per_second", "Units of work per second over all shards in the last window (one unit: one operation instance on one shard).", []string{"design"}, nil)
	dShardWork   = prometheus.NewDesc("shardkey_shard_work_per_second", "Units of work per second on each shard (0-based) in the last window.", []string{"design", "shard"}, nil)
	dNodeWork    = prometheus.NewDesc("shardkey_node_work_per_second", "With slots over nodes: units of work per second on each node (0-based) in the last window.", []string{"design", "node"}, nil)
	dRatio       = prometheus.NewDesc("shardkey_work_max_to_mean_ratio", "Max over mean of per-shard work in the last window (idle shards in the mean).", []string{"design"}, nil)
	dScatter     = prometheus.NewDesc("shardkey_scatter_share", "Share (0..1) of the last window's requests sent to every shard.", []string{"design"}, nil)
	dShapeScat   = prometheus.NewDesc("shardkey_shape_scatter_share", "Share (0..1) of the last window's requests that are this shape's scatter-gathers.", []string{"design", "shape"}, nil)
	dShapeReq    = prometheus.NewDesc("shardkey_shape_requests_per_second", "Requests per second of this statement shape in the last window.", []string{"design", "shape"}, nil)
	dCross       = prometheus.NewDesc("shardkey_cross_shard_txn_ratio", "Share (0..1) of the last window's transactions that touch more than one shard.", []string{"design"}, nil)
	dCrossRB     = prometheus.NewDesc("shardkey_rolled_back_cross_shard_txn_ratio", "Share (0..1) of the last window's rolled-back transactions that touched more than one shard before rolling back (absent when the window has none).", []string{"design"}, nil)
	dTopKeyShare = prometheus.NewDesc("shardkey_top_key_share", "Share (0..1) of the last window's requests that bind the design's key to this value (the top keys only).", []string{"design", "key"}, nil)
	dEvents      = prometheus.NewDesc("shardkey_events_total", "Events raised (hot_key, work_ratio, new_scatter_shape, scatter_rise).", []string{"design", "type"}, nil)
)

// Describe sends the descriptors of every metric (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dWindowEnd, dWindowSecs, dWindows, dRequests, dWork, dShardWork, dNodeWork, dRatio, dScatter, dShapeScat, dShapeReq, dCross, dCrossRB, dTopKeyShare, dEvents} {
		ch <- d
	}
}

// Collect sends the last window's values (prometheus.Collector).
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	// A figure the window cannot give (a rate of a window that is one
	// instant) is left out of the scrape, not sent as NaN: Prometheus
	// marks the series stale, a graph shows a gap and an alert on it
	// holds no value, where a NaN would pass into sum() and avg() and
	// turn the whole aggregate NaN. (Nor as 0, which reads as idle.)
	gn := func(d *prometheus.Desc, v Num, labels ...string) {
		if v.Known() {
			g(d, float64(v), labels...)
		}
	}
	ch <- prometheus.MustNewConstMetric(dWindows, prometheus.CounterValue, m.n)
	for k, v := range m.events {
		ch <- prometheus.MustNewConstMetric(dEvents, prometheus.CounterValue, v, k[0], k[1])
	}
	r := m.last
	if r == nil {
		return
	}
	g(dWindowEnd, float64(r.End.UnixNano())/1e9)
	gn(dWindowSecs, r.Seconds)
	for _, d := range r.Designs {
		gn(dRequests, d.RequestsPerS, d.Key)
		gn(dWork, d.WorkPerS, d.Key)
		for i, x := range d.ShardWork {
			g(dShardWork, x, d.Key, strconv.Itoa(i))
		}
		for i, x := range d.NodeWork {
			g(dNodeWork, x, d.Key, strconv.Itoa(i))
		}
		g(dRatio, d.WorkRatio, d.Key)
		g(dScatter, d.ScatterShare, d.Key)
		g(dCross, d.CrossShardTxnFraction, d.Key)
		if d.RolledBackCrossShardFraction != nil {
			g(dCrossRB, *d.RolledBackCrossShardFraction, d.Key)
		}
		seen := map[string]bool{}
		for _, s := range d.Shapes {
			if seen[s.Name] { // two operations never share a name; be safe
				continue
			}
			seen[s.Name] = true
			g(dShapeScat, s.ScatterShare, d.Key, s.Name)
			gn(dShapeReq, s.RequestsPerS, d.Key, s.Name)
		}
		for _, k := range d.TopKeys {
			g(dTopKeyShare, k.Share, d.Key, k.Key)
		}
	}
}

// Handler returns an http.Handler serving m at /metrics in the
// Prometheus exposition formats. It answers only requests whose Host
// header names a loopback address, localhost, or one of allowed (the
// listen address's host): a page on another site cannot read it through
// DNS rebinding.
func (m *Metrics) Handler(allowed ...string) http.Handler {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("shardkey watch: metrics at /metrics\n"))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, allowed) {
			http.Error(w, "forbidden Host", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func hostAllowed(host string, allowed []string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if a != "" && strings.EqualFold(h, strings.Trim(a, "[]")) {
			return true
		}
	}
	return false
}
