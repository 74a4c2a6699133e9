//go:build unix

package input

import (
	"os"
	"syscall"
)

// mapFile maps f, a regular file, read-only into memory, or returns nil
// (then the file is read with read calls). unmap releases the mapping.
func mapFile(f *os.File) (data []byte, unmap func()) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() != int64(int(st.Size())) {
		return nil, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return data, func() { syscall.Munmap(data) }
}
