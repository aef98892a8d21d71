//go:build !linux && !darwin

package transport

import "net"

// PeerUID is unknown here (-1): Windows named pipes check the server's SID
// instead, and other systems are best effort.
var PeerUID = func(net.Conn) (int, error) { return -1, nil }
