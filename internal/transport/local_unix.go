//go:build !windows

package transport

import (
	"context"
	"net"
	"time"
)

func dialLocal(ctx context.Context, path string, budget time.Duration) (net.Conn, error) {
	return DialUnix(ctx, path, budget)
}

func samePeer(conn net.Conn) error { return checkUID(conn) }
