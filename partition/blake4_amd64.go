//go:build amd64 && !purego

package partition

import "golang.org/x/sys/cpu"

// useBlake4 is whether blake4AVX2 runs here (AVX2).
var useBlake4 = cpu.X86.HasAVX2

// blake4AVX2 compresses four single-block messages (blakeLanes) with
// BLAKE2b's parameters for an 8-byte digest and no key, and sets out[l]
// to the first word of message l's final state (blake4_amd64.s, written
// by internal/blake4gen).
//
//go:noescape
func blake4AVX2(m *[16][4]uint64, t *[4]uint64, out *[4]uint64)
