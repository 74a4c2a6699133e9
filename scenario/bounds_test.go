package scenario

import (
	"os"
	"strings"
	"testing"
)

// TestReadFileBound: a spec file is read up to shardkey.MaxSpecBytes:
// /dev/zero is refused, naming it, instead of filling memory.
func TestReadFileBound(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "larger than 16 MiB") {
		t.Errorf("ReadFile(/dev/zero): %v", err)
	}
}
