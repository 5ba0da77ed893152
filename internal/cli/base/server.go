package base

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/podwatch/podwatch/internal/apiwire"
)

// Server is an http.Server on its own listener, with the goroutines it
// runs accounted for: a replay's fixture server, serve's and the proxy's.
type Server struct {
	addr   string
	caPEM  []byte // set when it serves TLS: the certificate to trust
	hs     *http.Server
	served chan struct{}

	// mu orders handlers.Add before handlers.Wait: once closed is set no
	// handler starts, so Wait never races an Add.
	mu       sync.Mutex
	closed   bool
	handlers sync.WaitGroup
}

// StartServer serves h on addr: HTTP/1.1 in clear, or with overTLS
// HTTP/2 over TLS with a certificate made for this run.
func StartServer(addr string, h http.Handler, overTLS bool) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve fixture: %w", err)
	}
	fs := &Server{addr: l.Addr().String(), served: make(chan struct{})}
	var tlsCfg *tls.Config
	if overTLS {
		cert, caPEM, err := replayCert()
		if err != nil {
			l.Close()
			return nil, err
		}
		fs.caPEM = caPEM
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	fs.hs = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !fs.enter() {
				// A Status, as the apiserver answers while it shuts down,
				// in the form the client asked for (protobuf for the
				// kubelet): a client reads it as the server's refusal, not
				// as a body it cannot parse.
				rw, _ := apiwire.Respond(w, r)
				apiwire.ServiceUnavailable("podwatch: the server is shutting down").Write(rw)
				return
			}
			defer fs.handlers.Done()
			h.ServeHTTP(w, r)
		}),
		// A client going away mid-watch is normal here, not worth a log line.
		ErrorLog:  log.New(io.Discard, "", 0),
		TLSConfig: tlsCfg, // ServeTLS offers h2 and http/1.1 on it
	}
	go func() {
		defer close(fs.served)
		// Both return http.ErrServerClosed on close.
		if tlsCfg != nil {
			fs.hs.ServeTLS(l, "", "")
		} else {
			fs.hs.Serve(l)
		}
	}()
	return fs, nil
}

// URL is the base URL clients use.
func (fs *Server) URL() string {
	if fs.caPEM != nil {
		return "https://" + fs.addr
	}
	return "http://" + fs.addr
}

// CA is the PEM of the certificate a client trusts when the server serves
// TLS; nil when it does not.
func (fs *Server) CA() []byte { return fs.caPEM }

// Close closes the listener and every connection, which ends the handlers
// (their request contexts end), and waits for them.
func (fs *Server) Close() {
	fs.refuse()
	fs.hs.Close()
	<-fs.served
	fs.handlers.Wait()
}

// refuse makes every request from now on get a 503 Status instead of its
// handler: a request on a kept-alive connection can still arrive while
// Close closes the connections.
func (fs *Server) refuse() {
	fs.mu.Lock()
	fs.closed = true
	fs.mu.Unlock()
}

// enter counts a handler in, unless the server is closing.
func (fs *Server) enter() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.closed {
		return false
	}
	fs.handlers.Add(1)
	return true
}

// LogRequests logs each request when its answer is complete.
func LogRequests(log *Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		log.Printf("%s %s %d %s in %s", r.Method, r.URL.RequestURI(), sw.status, http.StatusText(sw.status), time.Since(start).Round(time.Millisecond))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
