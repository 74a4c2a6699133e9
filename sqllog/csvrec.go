package sqllog

import "bytes"

// csvlog records without encoding/csv: the reader's hot path.
//
// PostgreSQL writes csvlog in src/backend/utils/error/csvlog.c: text
// fields quoted by appendCSVLiteral (a quote doubled inside), numbers and
// timestamps bare, a record ended by a newline; a quoted field may hold
// newlines (a statement over several lines). On Windows the log file is
// in text mode (syslogger.c), so every newline is written "\r\n".
//
// scanCSVRecord reads such records the way encoding/csv's Reader reads
// them (Comma ',', FieldsPerRecord -1, LazyQuotes false; Go's
// encoding/csv/reader.go: readLine, readRecord): empty lines are skipped,
// "\r\n" is read as "\n" (also inside a quoted field), a field that
// starts with a quote ends at a quote followed by a comma or the line's
// end, and a doubled quote inside it is one quote. What encoding/csv
// would refuse (a bare quote in an unquoted field, a quote followed by
// anything else), and a record that does not end with a newline in the
// bytes given, it leaves to encoding/csv: the caller then reads that
// record with a csv.Reader, whose answer or error is the reference.

// csvStop marks the bytes that end an unquoted field's scan: its ends
// (a comma, a newline) and a quote, which encoding/csv refuses there.
var csvStop = [256]bool{',': true, '\n': true, '"': true}

// csvWant maps a csvlog field index to its slot in csvFields.f, or -1.
var csvWant = func() (w [csvMin]int8) {
	for i := range w {
		w[i] = -1
	}
	for slot, field := range [...]int{csvTime, csvPid, csvSession, csvSeverity, csvMessage, csvDetail} {
		w[field] = int8(slot)
	}
	return w
}()

// Slots of csvFields.f.
const (
	slotTime = iota
	slotPid
	slotSession
	slotSeverity
	slotMessage
	slotDetail
)

// csvFields is what the reader uses of one csvlog record: the number of
// fields and the values of the fields it reads (in csvWant's slots), as
// encoding/csv would return them.
type csvFields struct {
	n int
	f [6][]byte
}

// csvScan is the outcome of scanCSVRecord.
type csvScan int

const (
	csvOK    csvScan = iota // a record read
	csvMore                 // no whole record in the bytes given: more bytes, or encoding/csv at the end of the input
	csvOther                // encoding/csv's to judge (it refuses the record)
)

// scanCSVRecord reads the record at the start of b, after any empty
// lines. On csvOK, n is the bytes read (the empty lines, the record and
// its newline) and start the offset of the record's first byte; values
// that differ from their bytes in b (a doubled quote, a "\r\n") are
// decoded into *scratch, which the values point into until the next call.
func scanCSVRecord(b []byte, scratch *[]byte, r *csvFields) (start, n int, st csvScan) {
	i := 0
	for {
		if i < len(b) && b[i] == '\n' {
			i++
			continue
		}
		if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			i += 2
			continue
		}
		break
	}
	if i+1 >= len(b) {
		return 0, 0, csvMore // also a lone "\r": its line may be empty
	}
	start = i
	*scratch = (*scratch)[:0]
	r.f = [6][]byte{}
	field := 0
	for {
		slot := int8(-1)
		if field < len(csvWant) {
			slot = csvWant[field]
		}
		field++
		if i < len(b) && b[i] == '"' {
			i++
			vs := i
			special := false // doubled quotes or "\r\n" to decode
			for {
				q := bytes.IndexByte(b[i:], '"')
				if q < 0 || i+q+1 >= len(b) {
					return 0, 0, csvMore
				}
				i += q + 1
				switch c := b[i]; {
				case c == '"':
					special = true
					i++
					continue
				case c == ',':
				case c == '\n':
				case c == '\r':
					if i+1 >= len(b) {
						return 0, 0, csvMore
					}
					if b[i+1] != '\n' {
						return 0, 0, csvOther
					}
				default:
					return 0, 0, csvOther
				}
				break
			}
			if slot >= 0 {
				v := b[vs : i-1]
				if special || bytes.IndexByte(v, '\r') >= 0 {
					v = decodeCSVQuoted(scratch, v)
				}
				r.f[slot] = v
			}
			switch b[i] {
			case ',':
				i++
				continue
			case '\r':
				i++
			}
			r.n = field
			return start, i + 1, csvOK
		}
		// An unquoted field: up to a comma or the line's end.
		vs := i
		for i < len(b) && !csvStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, 0, csvMore
		}
		if b[i] == '"' {
			return 0, 0, csvOther // a bare quote
		}
		v := b[vs:i]
		last := b[i] == '\n'
		if last && len(v) > 0 && v[len(v)-1] == '\r' {
			v = v[:len(v)-1]
		}
		if slot >= 0 {
			r.f[slot] = v
		}
		i++
		if last {
			r.n = field
			return start, i, csvOK
		}
	}
}

// decodeCSVQuoted appends to *scratch the value of a quoted field's
// bytes v (between its quotes): a doubled quote is one quote, "\r\n" is
// "\n" (encoding/csv reads "\r\n" as "\n" on every line).
func decodeCSVQuoted(scratch *[]byte, v []byte) []byte {
	s := len(*scratch)
	out := *scratch
	for len(v) > 0 {
		k := bytes.IndexAny(v, "\"\r")
		if k < 0 {
			out = append(out, v...)
			break
		}
		out = append(out, v[:k]...)
		switch {
		case v[k] == '"': // doubled: the scanner saw its pair
			out = append(out, '"')
			v = v[k+2:]
		case k+1 < len(v) && v[k+1] == '\n':
			out = append(out, '\n')
			v = v[k+2:]
		default:
			out = append(out, '\r')
			v = v[k+1:]
		}
	}
	*scratch = out
	return out[s:len(out):len(out)]
}

// pgLevelName returns the level of pgLevels that b spells, without
// copying b.
func pgLevelName(b []byte) (string, bool) {
	switch string(b) {
	case "LOG":
		return "LOG", true
	case "ERROR":
		return "ERROR", true
	case "DETAIL":
		return "DETAIL", true
	case "STATEMENT":
		return "STATEMENT", true
	case "HINT":
		return "HINT", true
	case "WARNING":
		return "WARNING", true
	case "FATAL":
		return "FATAL", true
	case "PANIC":
		return "PANIC", true
	case "NOTICE":
		return "NOTICE", true
	case "INFO":
		return "INFO", true
	case "CONTEXT":
		return "CONTEXT", true
	case "LOCATION":
		return "LOCATION", true
	case "QUERY":
		return "QUERY", true
	case "DEBUG":
		return "DEBUG", true
	case "DEBUG1":
		return "DEBUG1", true
	case "DEBUG2":
		return "DEBUG2", true
	case "DEBUG3":
		return "DEBUG3", true
	case "DEBUG4":
		return "DEBUG4", true
	case "DEBUG5":
		return "DEBUG5", true
	}
	return "", false
}
