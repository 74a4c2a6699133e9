package advisor

import (
	"regexp"
	"slices"
	"strings"

	"github.com/shardkey/shardkey"
)

// MongoDB's own notation for the keys the advisor proposes.
//
// Under --engine mongodb a key the advisor generated is written as a
// MongoDB shard key pattern, the document sh.shardCollection takes
// (docs/engines.md, mongodb; src/mongo/db/s/shardkey_pattern.cpp): a
// hashed key on one field, hash(a), is {a: "hashed"}; a ranged key,
// range(a, b), is {a: 1, b: 1} (range({a: 1}, bounds=[...]) with its
// split points). Both place exactly as the shardkey form does on that
// engine (a hashed prefix is MongoDB's hashed placement of the field,
// sim/mongo.go), so only the text changes; a key wrapped in isolate() or
// salt() keeps the wrapper around the pattern. Keys the user named (-k,
// --current) are left as written.

// mongoWord is a key column as the rewrite accepts it: an unquoted name.
const mongoWord = `[A-Za-z_][A-Za-z0-9_.$]*`

var (
	mongoHashRe  = regexp.MustCompile(`\bhash\((` + mongoWord + `)\)`)
	mongoRangeRe = regexp.MustCompile(`\brange\((` + mongoWord + `(?:, ` + mongoWord + `)*)(, bounds=\[[^\]]*\])?\)`)
)

// MongoKey returns design key written with MongoDB shard key patterns in
// place of hash(col) (one column) and range(col, ...): "hash(user_id)" is
// `{user_id: "hashed"}`, "isolate(hash(user_id), top=1)" is
// `isolate({user_id: "hashed"}, top=1)`, "range(a, bounds=[5])" is
// "range({a: 1}, bounds=[5])". A key with nothing to rewrite, or whose
// rewrite would not parse (quoted names), is returned unchanged.
func MongoKey(key string) string {
	out := mongoText(key)
	if out == key {
		return key
	}
	if _, err := shardkey.ParseDesign(out); err != nil {
		return key
	}
	return out
}

// mongoText rewrites every hash(col) and range(col, ...) in s, a key or a
// sentence citing keys, as MongoKey does, without checking that s parses.
func mongoText(s string) string {
	out := mongoHashRe.ReplaceAllString(s, `{$1: "hashed"}`)
	out = mongoRangeRe.ReplaceAllStringFunc(out, func(m string) string {
		sub := mongoRangeRe.FindStringSubmatch(m)
		cols := strings.Split(sub[1], ", ")
		if slices.Contains(cols, "bounds") {
			return m
		}
		p := "{" + strings.Join(cols, ": 1, ") + ": 1}"
		if sub[2] == "" {
			return p
		}
		return "range(" + p + sub[2] + ")"
	})
	return out
}

// mongoNotation rewrites, under --engine mongodb, every key of adv the
// advisor generated (those not in named) into MongoDB's notation
// (MongoKey), in the keys themselves and wherever the advice's text
// cites them, so every output format says the key as a MongoDB user
// writes it to sh.shardCollection.
func mongoNotation(adv *Advice, named []string) {
	type pair struct{ from, to string }
	var pairs []pair
	add := func(k string) {
		if k == "" || slices.Contains(named, k) {
			return
		}
		if m := MongoKey(k); m != k && !slices.ContainsFunc(pairs, func(p pair) bool { return p.from == k }) {
			pairs = append(pairs, pair{k, m})
		}
	}
	for _, as := range adv.Candidates {
		if slices.Contains(named, as.Key) {
			continue // the user's key, its fixes in its notation
		}
		add(as.Key)
		for _, f := range as.Fixes {
			add(f.Key)
		}
		if as.capacity != nil {
			add(as.capacity.AfterKey)
		}
		if as.after != nil {
			add(as.after.Key)
		}
	}
	if len(pairs) == 0 {
		return
	}
	// The user's keys stay as written where the text cites them (a
	// design of theirs may hold a generated key's text).
	for _, k := range named {
		if k != "" {
			pairs = append(pairs, pair{k, k})
		}
	}
	// Longest first: a design's text may hold a shorter key.
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.from) - len(a.from) })
	from := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		from = append(from, p.from, p.to)
	}
	r := strings.NewReplacer(from...)
	// With no key of the user's to keep as written, every key the text
	// cites is the advisor's (a fix's "range(bucket, created)" as well).
	mine := !slices.ContainsFunc(named, func(k string) bool { return k != "" })
	s := func(p *string) {
		if *p = r.Replace(*p); mine {
			*p = mongoText(*p)
		}
	}
	all := func(xs []string) {
		for i := range xs {
			s(&xs[i])
		}
	}
	s(&adv.Recommended)
	all(adv.Summary)
	all(adv.Durable)
	all(adv.Flags)
	all(adv.Warnings)
	seen := map[*Capacity]bool{}
	seenAfter := map[*AfterFixes]bool{}
	for _, as := range adv.Candidates {
		generated := !slices.Contains(named, as.Key)
		s(&as.Key)
		s(&as.Origin)
		s(&as.Verdict)
		s(&as.Rejection)
		all(as.Reasons)
		for i := range as.Fixes {
			f := &as.Fixes[i]
			s(&f.Text)
			if generated {
				f.Text = mongoText(f.Text) // a generated key's fix cites its keys
			}
			s(&f.Target)
			s(&f.Key)
		}
		if c := as.capacity; c != nil && !seen[c] {
			seen[c] = true
			s(&c.AfterKey)
			all(c.Applied)
			all(c.NotSimulated)
		}
		if a := as.after; a != nil && !seenAfter[a] {
			seenAfter[a] = true
			s(&a.Key)
			for i := range a.Applied {
				s(&a.Applied[i].Text)
			}
		}
		if as.Score != nil && !slices.Contains(named, as.Score.Key) {
			c := *as.Score // the score may be shared: rewrite a copy
			c.Key = r.Replace(c.Key)
			c.Tables = slices.Clone(c.Tables)
			for i := range c.Tables {
				c.Tables[i].Key = MongoKey(c.Tables[i].Key)
			}
			c.KeyWithBounds = MongoKey(c.KeyWithBounds)
			c.RangeBounds = slices.Clone(c.RangeBounds)
			for i := range c.RangeBounds {
				c.RangeBounds[i].Key = MongoKey(c.RangeBounds[i].Key)
			}
			as.Score = &c
		}
	}
}
