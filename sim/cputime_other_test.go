//go:build !unix

package sim

// cpuSeconds is unknown here (-1): no getrusage.
func cpuSeconds() float64 { return -1 }
