package hookwire_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// vpetToken is the token the stand-in pet expects; it is in the token file
// beside its socket, where vpet-notify reads it.
const vpetToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// vpetPet stands in for VPet in the hostile matrix and the latency
// benchmark, which run the real binaries as subprocesses: a listener in
// this test process, on a Unix socket. Mode "ok" answers 200 to a request
// with the right token and appends a line to dir/vpet.got for each; "hang"
// reads the request and never answers; "refuse" leaves a socket file that
// nobody listens on, as a crashed pet does.
func vpetPet(t testing.TB, dir, mode string) []string {
	// A socket path must be short (104 bytes on macOS): not under dir.
	sockDir, err := os.MkdirTemp("", "vpet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "notify.sock")
	if err := os.WriteFile(filepath.Join(sockDir, "notify.token"), []byte(vpetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := filepath.Join(dir, "vpet.got")
	// A pet that hangs reads the request first, then never answers.
	serveMode := mode
	if mode == "hang" {
		serveMode = "ok"
	}
	quit := make(chan struct{})
	serveUnix(t, sock, serveMode, func(c net.Conn) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		body, _ := io.ReadAll(req.Body)
		if mode == "hang" {
			<-quit
			return
		}
		status := "401 Unauthorized"
		if req.Header.Get("Authorization") == "Bearer "+vpetToken && req.URL.Path == "/event" {
			status = "200 OK"
			mu.Lock()
			if f, err := os.OpenFile(got, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
				f.Write(append(bytes.ReplaceAll(body, []byte("\n"), nil), '\n'))
				f.Close()
			}
			mu.Unlock()
		}
		io.WriteString(c, "HTTP/1.1 "+status+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	})
	t.Cleanup(func() { close(quit) }) // before serveUnix's own, which waits for serve
	return []string{"VPET_NOTIFY_SOCKET=" + sock}
}

func vpetTarget(t testing.TB, dir, mode string) []string { return vpetPet(t, dir, mode) }

func vpetDelivered(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "vpet.got"))
	return bytes.Count(b, []byte("\n"))
}
