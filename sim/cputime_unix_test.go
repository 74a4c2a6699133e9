//go:build unix

package sim

import "syscall"

// cpuSeconds is the process's user plus system CPU time so far, in
// seconds (getrusage(2) RUSAGE_SELF), or -1 when unknown.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
