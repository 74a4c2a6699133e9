//go:build unix && !linux

package input

import "syscall"

// release unmaps a mapping (see mapFile).
func release(data []byte) { syscall.Munmap(data) }
