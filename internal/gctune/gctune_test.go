package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// percent returns the current GOGC without changing it.
func percent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// waitRestored runs collections until the finalizer has run or d passed.
func waitRestored(d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.GC()
		if Restored() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return Restored()
}

func TestDefer(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(100)
	defer debug.SetMemoryLimit(math64)

	const limit = 64 << 20
	if !Defer(limit) {
		t.Fatal("Defer with no GOGC/GOMEMLIMIT set did nothing")
	}
	if p := percent(); p != -1 {
		t.Fatalf("GOGC after Defer = %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Fatalf("memory limit after Defer = %d, want %d", l, limit)
	}
	// A small live heap (1 MiB, under limit/4 = 16 MiB): collections keep
	// the deferred settings.
	small := make([]byte, 1<<20)
	if waitRestored(200 * time.Millisecond) {
		t.Fatal("restored with 1 MiB live, under a quarter of the 64 MiB limit")
	}
	if p := percent(); p != -1 {
		t.Fatalf("GOGC after small collections = %d, want -1", p)
	}
	runtime.KeepAlive(small)
	// 24 MiB live, above limit/4: the next collection restores GOGC=100
	// and lifts the limit.
	big := make([][]byte, 24)
	for i := range big {
		big[i] = make([]byte, 1<<20)
		big[i][0] = 1
	}
	if !waitRestored(5 * time.Second) {
		t.Fatal("not restored with 24 MiB live, above a quarter of the 64 MiB limit")
	}
	runtime.KeepAlive(big)
	if p := percent(); p != 100 {
		t.Fatalf("GOGC after restore = %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math64 {
		t.Fatalf("memory limit after restore = %d, want none (%d)", l, int64(math64))
	}
}

// TestRestore: Restore puts back the settings Defer found, here a
// program's own (GOGC 150, a 1 GiB limit), not the defaults.
func TestRestore(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(100)
	defer debug.SetMemoryLimit(math64)
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	if !Defer(64 << 20) {
		t.Fatal("Defer did nothing")
	}
	if p := percent(); p != -1 {
		t.Fatalf("GOGC after Defer = %d, want -1", p)
	}
	Restore()
	if p := percent(); p != 150 {
		t.Fatalf("GOGC after Restore = %d, want 150", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Fatalf("memory limit after Restore = %d, want %d", l, 1<<30)
	}
	Restore() // a second call changes nothing
	if p := percent(); p != 150 {
		t.Fatalf("GOGC after a second Restore = %d, want 150", p)
	}
}

func TestDeferUserSettingsWin(t *testing.T) {
	defer debug.SetGCPercent(100)
	defer debug.SetMemoryLimit(math64)
	for _, env := range [][2]string{{"GOGC", "200"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env[0], env[1])
			if Defer(64 << 20) {
				t.Fatalf("Defer changed the settings with %s=%s set", env[0], env[1])
			}
			if p := percent(); p != 100 {
				t.Fatalf("GOGC = %d, want 100 (untouched)", p)
			}
		})
	}
	if Defer(0) {
		t.Fatal("Defer(0) changed the settings")
	}
}
