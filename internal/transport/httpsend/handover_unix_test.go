//go:build unix

package httpsend

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hookwire/hookwire/internal/transport"
)

// The hand-over is Unix's: a courier is a detached process, which only
// Unix systems start (hook's detach); on Windows the hook waits for every
// delivery within its budget, and no connection is handed over
// (hook's TestHandOverWhere).
//
// A POST the server took and is slow to answer is handed over with its
// connection (transport's late.go): the courier reads the status on the
// same connection, and the server handles the request once.
func TestHTTPHandOver(t *testing.T) {
	answer := make(chan struct{})
	answered := sync.OnceFunc(func() { close(answer) })
	defer answered() // a failure before the answer must not leave srv.Close waiting
	handled := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handled <- string(must(io.ReadAll(r.Body)))
		<-answer
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	defer close(handled)
	late := &transport.Late{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rctx, end := late.Begin(ctx)
	done := make(chan error)
	go func() {
		_, err := Request{URL: srv.URL + "/event", Body: []byte(`{"n":1}`)}.Do(rctx)
		end()
		done <- err
	}()
	if b := <-handled; b != `{"n":1}` {
		t.Fatalf("the server read %q", b)
	}
	late.HandOver()
	if err := <-done; !errors.Is(err, transport.ErrHandedOver) {
		t.Fatalf("Do after the hand-over: %v", err)
	}
	items, files, err := transport.Encode(late.Held(), nil)
	if err != nil || len(items) != 1 || items[0].Kind != "http" || items[0].Conn != 0 {
		t.Fatalf("Encode: %+v, %v", items, err)
	}
	answered()
	_, reply, err := transport.Carry(ctx, items[0], files)
	if err != nil || reply.Status != http.StatusAccepted {
		t.Errorf("the courier: %d, %v; want the server's 202", reply.Status, err)
	}
	select {
	case b := <-handled:
		t.Errorf("the server handled a second request: %q", b)
	default:
	}
}
