package web

import (
	"context"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Guards against other web pages: a page the user visits elsewhere can
// make the browser send requests to the playground (a form or a fetch to
// http://127.0.0.1:8080/), or point its own host name at 127.0.0.1 (DNS
// rebinding) and then read the answers as same-origin. Three checks stop
// both:
//
//  1. Host (checkHost): the request's Host header must name the address
//     the connection came in on (the listener's IP and port; "localhost"
//     too when that IP is loopback) or a name in Options.Hosts. A
//     rebinding page's requests carry the attacker's host name and get
//     421 Misdirected Request (RFC 9110, 15.5.20).
//  2. Origin (sameOrigin): every API call that computes something (POST
//     /api/spec, GET and POST /api/report) must come from the playground's
//     own page. Browsers say where a request comes from in Sec-Fetch-Site
//     (Fetch Metadata; all current browsers) and Origin (every CORS and
//     every POST request); "cross-site", "same-site" or an Origin other
//     than http://HOST gets 403. A client that sends neither (curl, a
//     script) is not a browser and is served.
//  3. Content type: a POST body must be declared YAML or JSON
//     (text/yaml, application/yaml, application/x-yaml, text/x-yaml,
//     application/json); others get 415. A browser sends such a type
//     across origins only after a CORS preflight, which the playground
//     never approves, so even a browser that sends no Origin cannot post
//     text/plain or a form to it.
//
// The server answers no CORS request (no Access-Control-* headers), so a
// page elsewhere can neither read an answer nor send a non-simple request.

// checkHost wraps h with the Host check (1 above). A request handled
// without a connection (ServeHTTP called in-process, as tests do) has no
// local address; it is checked against nothing but Options.Hosts' names
// when its Host is one, and otherwise passes, as no browser can send it.
func (s *server) checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && !s.hostAllowed(r.Host, local.String()) {
			writeJSON(w, http.StatusMisdirectedRequest, &apiError{Status: http.StatusMisdirectedRequest,
				Msg: "Host " + quoteHost(r.Host) + " is not the address the playground listens on (" + local.String() + "); open it as http://" + local.String() + "/"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// quoteHost quotes a Host header for a message, cut to 100 bytes.
func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100]
	}
	return "\"" + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return '?'
		}
		return r
	}, h) + "\""
}

// hostAllowed reports whether the Host header host names local, the
// connection's local address (IP:PORT): the same IP literal and port, or
// "localhost" with the port when the IP is loopback, or a name of
// s.opts.Hosts with the port. A Host without a port means port 80.
func (s *server) hostAllowed(host, local string) bool {
	lip, lport, err := net.SplitHostPort(local)
	if err != nil || host == "" {
		return false
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
	}
	if port != lport {
		return false
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	want := net.ParseIP(lip)
	if ip := net.ParseIP(name); ip != nil {
		return want != nil && ip.Equal(want)
	}
	if name == "localhost" && want != nil && want.IsLoopback() {
		return true
	}
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), name) {
			return true
		}
	}
	return false
}

// sameOrigin returns a 403 error unless r comes from the playground's own
// page or from no browser at all (2 above), and a 415 for a POST whose
// body is not declared YAML or JSON (3 above).
func sameOrigin(r *http.Request) error {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
		// "none": the user opened the URL (address bar, bookmark).
	default:
		return &apiError{Status: http.StatusForbidden, Msg: "cross-origin request refused (Sec-Fetch-Site: " + quoteHost(site) + "): the playground answers its own page only"}
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || !strings.EqualFold(u.Host, r.Host) || u.Path != "" {
			return &apiError{Status: http.StatusForbidden, Msg: "cross-origin request refused (Origin " + quoteHost(o) + "): the playground answers its own page only"}
		}
	}
	if r.Method == http.MethodPost {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch {
		case err != nil:
			return &apiError{Status: http.StatusUnsupportedMediaType, Msg: "the body must be a spec sent as Content-Type: text/yaml (or application/yaml, application/json)"}
		case mt == "text/yaml", mt == "application/yaml", mt == "application/x-yaml", mt == "text/x-yaml", mt == "application/json":
		default:
			return &apiError{Status: http.StatusUnsupportedMediaType, Msg: "Content-Type " + quoteHost(mt) + ": the body must be a spec sent as text/yaml (or application/yaml, application/json)"}
		}
	}
	return nil
}

// slots bounds the requests that build or score at once: each takes a
// slot for its whole computation. A request waits up to wait for one and
// then gets 503 with Retry-After; a client that goes away stops waiting.
type slots struct {
	c    chan struct{}
	wait time.Duration
}

func newSlots(n int, wait time.Duration) *slots {
	return &slots{c: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot, or returns a 503 error (the server is busy) or the
// context's error (the client went away).
func (s *slots) acquire(ctx context.Context) error {
	select {
	case s.c <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return &apiError{Status: http.StatusServiceUnavailable, Msg: "the playground is busy scoring other requests; try again in a moment"}
	}
}

func (s *slots) release() { <-s.c }
