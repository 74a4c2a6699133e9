//go:build linux

package input

import "syscall"

// release drops a mapping's pages, then unmaps it (see mapFile).
func release(data []byte) {
	syscall.Madvise(data, syscall.MADV_DONTNEED)
	syscall.Munmap(data)
}
