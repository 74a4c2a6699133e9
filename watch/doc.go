// Package watch keeps a shard key decision honest over time: it scores a
// workload window after window (each window's figures are those of
// sim on that window's slice of the log), finds the keys that take the
// most traffic with a heavy-hitter sketch (TopK, Space-Saving), and
// raises events when a design stops holding, as seed 000's "keeping the
// decision honest in production" asks: a key moving from a fraction of a
// percent of traffic to several percent (hot_key), per-shard work whose
// max-to-mean ratio rises above a threshold (work_ratio), a new statement
// shape that scatters (new_scatter_shape), and a shape whose share of
// scatter-gather requests rises (scatter_rise).
//
// The model:
//
//  1. A reader (sqllog.ReadWindows) cuts a log into windows by its own
//     timestamps and reads each into a workload of its own.
//  2. Watcher.Add compiles each design against the window's workload,
//     routes it (sim.Run) and reports per-shard work, max/mean, fan-out
//     and scatter share per shape, cross-shard transactions, and the top
//     keys by requests/s.
//  3. It compares the window with what it remembers of earlier windows
//     (per design: keys that are hot, shapes seen and their last scatter
//     share, whether max/mean was above its threshold) and raises Events.
//
// Memory is bounded by the number of statement shapes and tracked keys,
// never by the number of windows.
package watch
