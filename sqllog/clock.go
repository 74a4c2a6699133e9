package sqllog

import (
	"strconv"
	"time"

	"github.com/shardkey/shardkey"
)

// clockJitter is how far a statement's timestamp may fall behind the
// latest one of the log before it counts as going backwards: the
// server's sessions write their lines concurrently, so a line stamped a
// little earlier can follow another's (MySQL's slow log, stamped at a
// statement's end, and PostgreSQL's, at the line's, are out of order by
// milliseconds). Within one session statements run one after another:
// any step back there counts.
const clockJitter = time.Second

// maxClockSessions bounds the sessions whose latest timestamp clock
// keeps: past it, it forgets them all (the log-wide check goes on).
const maxClockSessions = 1 << 12

// clock finds timestamps that go backwards, in log order: within a
// session (any step back), or behind the latest timestamp of the log so
// far by more than clockJitter plus the timestamps' resolution. Either
// says the clock was set back, or files were joined out of order: spans,
// rates and windows built on the timestamps are then off.
type clock struct {
	last   map[string]*int64 // each open session's latest timestamp (one lookup a statement)
	latest int64
	seen   bool
	// n counts the statements that went back; at the first, file and
	// line, its session (or "" when it went back only against the log)
	// and by how much (microseconds).
	n         int
	file      string
	line      int
	session   string
	back      int64
	inSession bool
}

// see checks entry e (in log order).
func (c *clock) see(e *entry) {
	if e.end {
		delete(c.last, e.session)
		return
	}
	if !e.hasTS || e.sql == "" {
		return
	}
	var back int64
	inSession := false
	if e.session != "" {
		prev := c.last[e.session]
		if prev == nil {
			if c.last == nil || len(c.last) >= maxClockSessions {
				// A log that never shows sessions end (no disconnection
				// lines) would grow the map without bound: start afresh.
				c.last = map[string]*int64{}
			}
			prev = new(e.ts)
			c.last[e.session] = prev
		}
		if e.ts < *prev {
			back, inSession = *prev-e.ts, true
		} else {
			*prev = e.ts
		}
	}
	if c.seen && e.ts < c.latest && !inSession {
		if d := c.latest - e.ts; d > clockJitter.Microseconds()+int64(e.res) {
			back = d
		}
	}
	if !c.seen || e.ts > c.latest {
		c.latest, c.seen = e.ts, true
	}
	if back == 0 {
		return
	}
	if c.n == 0 {
		c.file, c.line, c.session, c.back, c.inSession = e.file, e.line, e.session, back, inSession
	}
	c.n++
}

// warning returns the warning of the statements seen going back since
// the last call (nil for none), and starts counting afresh.
func (c *clock) warning() error {
	if c.n == 0 {
		return nil
	}
	where := "the log's latest timestamp so far"
	if c.inSession {
		where = "the previous statement of its session " + strconv.Quote(clip(c.session, 40))
	}
	what := "statements are stamped earlier than their"
	if c.n == 1 {
		what = "statement is stamped earlier than its"
	}
	err := shardkey.Errorf(c.file, c.line, "", "timestamps go backwards: this statement is stamped %v before %s; %d %s session's previous statement, or more than %v behind the log's latest (a clock set back, or rotated files read out of order?): spans, rates and time windows built on them may be off",
		time.Duration(c.back)*time.Microsecond, where, c.n, what, clockJitter)
	c.n = 0
	return err
}
