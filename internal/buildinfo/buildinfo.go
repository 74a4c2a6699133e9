// Package buildinfo reports the version of the running shardkey binary.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version reports the build's version from the Go build info: the module
// version of an installed release (go install ...@v1.2.3), else "devel"
// followed by the VCS revision and "-dirty" when the work tree had
// changes (go build in a clone), else plain "devel" (go test, go run
// without VCS stamping). JSON outputs carry it as "version".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && !strings.HasPrefix(v, "v0.0.0-") {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return "devel+" + rev + dirty
}
