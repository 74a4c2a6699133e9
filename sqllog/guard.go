package sqllog

import "fmt"

// Third-party parsers panic on some inputs (Vitess's MySQL parser on
// `SET````0`, which a server logs like any statement it refused). A
// statement is input, so a panic while parsing or reading one is that
// statement's parse error, reported with the file, line and text like any
// other statement that does not parse, never a crash.

// guarded returns parse behind a recover: a panic becomes the template's
// error, naming the dialect's parser.
func guarded(d Dialect, parse func(string) *template) func(string) *template {
	return func(text string) (t *template) {
		defer func() {
			if e := recover(); e != nil {
				t = &template{err: panicErr(d, e), text: text}
			}
		}()
		return parse(text)
	}
}

// panicErr is the error for a panic e inside dialect d's parser.
func panicErr(d Dialect, e any) error {
	return fmt.Errorf("the %s parser panicked on this statement: %v", d, e)
}
