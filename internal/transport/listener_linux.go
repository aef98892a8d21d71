package transport

import (
	"encoding/binary"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

var ownUID = os.Geteuid()

// serverUID is the uid of the socket at the server's end of a connection
// from local to remote: the connection itself (one hash lookup, 25 µs), or
// when that gives no answer, the listener on remote's port (a walk of the
// listening sockets, 150 µs). Both ask the kernel over netlink (sock_diag):
// reading /proc/net/tcp{,6} instead walks every bucket of the established
// hash, 3 ms a file on an idle machine, on every Trail Boss event.
func serverUID(local, remote *net.TCPAddr) (int, bool) {
	if uid, ok := connectionUID(local, remote); ok {
		return uid, true
	}
	return listenerUID(remote)
}

// listenerUID finds the listening socket a connection to addr reached: a
// TCP socket in state LISTEN on addr's port whose local address is addr or
// the wildcard (an IPv6 [::] socket takes IPv4 connections too, so both
// families are asked for an IPv4 address). Of several, one not ours is
// reported: the check errs on the side of refusing. ok is false when none is
// found or the kernel cannot be asked: a connection that reached no listener
// of this network namespace was forwarded by the kernel (a container's
// published port), which only root can set up.
func listenerUID(addr *net.TCPAddr) (uid int, ok bool) {
	found := -1
	note := func(u int) {
		if found == -1 || found == ownUID {
			found = u
		}
	}
	if ip4 := addr.IP.To4(); ip4 != nil {
		listeners(unix.AF_INET, addr.Port, [][]byte{ip4, net.IPv4zero.To4()}, note)
		listeners(unix.AF_INET6, addr.Port, [][]byte{addr.IP.To16(), net.IPv6zero}, note) // ::ffff:a.b.c.d
	} else {
		listeners(unix.AF_INET6, addr.Port, [][]byte{addr.IP.To16(), net.IPv6zero}, note)
	}
	return found, found != -1
}

// connectionUID asks the kernel for the socket at the server's end of
// conn, by its exact addresses (one hash lookup): the connection accepted,
// or waiting to be, whose uid is its listener's. ok is false when there is
// no answer, or one that does not say (a connection still being set up
// reads as root's, and so does not count).
func connectionUID(local, remote *net.TCPAddr) (uid int, ok bool) {
	family, size := unix.AF_INET, 4
	l, r := local.IP.To4(), remote.IP.To4()
	if l == nil || r == nil {
		family, size, l, r = unix.AF_INET6, 16, local.IP.To16(), remote.IP.To16()
	}
	req := diagRequest(family, 0, 0xfff)
	id := req[netlinkHdr+8:]
	binary.BigEndian.PutUint16(id[0:], uint16(remote.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(local.Port))
	copy(id[4:4+size], r)
	copy(id[20:20+size], l)
	binary.NativeEndian.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(id[44:], 0xffffffff)
	uid = -1
	ask(req, func(d []byte) {
		if d[1] == tcpEstablished || d[1] == tcpListen {
			uid = int(binary.NativeEndian.Uint32(d[diagUID:]))
		}
	})
	return uid, uid != -1
}

// The kernel's sock_diag structures (linux/inet_diag.h), which x/sys does
// not define: a request (inet_diag_req_v2) and the start of each answer
// (inet_diag_msg), as offsets.
const (
	diagReqLen     = 56 // family, protocol, ext, pad, states u32, inet_diag_sockid (48)
	diagMsgLen     = 72 // family, state, timer, retrans, sockid (48), expires, rqueue, wqueue, uid, inode
	diagSport      = 4  // in inet_diag_msg: sockid.sport, big-endian
	diagSrc        = 8  // sockid.src, 16 bytes (an IPv4 address in the first 4)
	diagUID        = 64
	tcpEstablished = 1
	tcpListen      = 10 // TCP_LISTEN
	netlinkHdr     = unix.SizeofNlMsghdr
	diagMaxReply   = 8 << 10 // a dump comes in messages of a page (NLMSG_GOODSIZE)
)

// listeners dumps the listening TCP sockets of family and calls found with
// the uid of each on port at one of addrs.
func listeners(family, port int, addrs [][]byte, found func(uid int)) {
	size := 4
	if family == unix.AF_INET6 {
		size = 16
	}
	ask(diagRequest(family, unix.NLM_F_DUMP, 1<<tcpListen), func(d []byte) {
		if int(binary.BigEndian.Uint16(d[diagSport:])) != port {
			return
		}
		src := d[diagSrc : diagSrc+size]
		for _, a := range addrs {
			if len(a) == size && string(a) == string(src) {
				found(int(binary.NativeEndian.Uint32(d[diagUID:])))
				return
			}
		}
	})
}

// diagRequest is a netlink message holding an inet_diag_req_v2 for TCP
// sockets of family in states.
func diagRequest(family int, flags uint16, states uint32) []byte {
	req := make([]byte, netlinkHdr+diagReqLen)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|flags)
	binary.NativeEndian.PutUint32(req[8:], 1) // seq
	r := req[netlinkHdr:]
	r[0], r[1] = byte(family), unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(r[4:], states)
	return req
}

// ask sends req over a sock_diag socket and calls each with every
// inet_diag_msg of the answer.
func ask(req []byte, each func(msg []byte)) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	// A reply that does not come is not waited for long.
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200_000})
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return
	}
	buf := make([]byte, diagMaxReply)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil || n < netlinkHdr {
			return
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE, unix.NLMSG_ERROR:
				return
			case unix.SOCK_DIAG_BY_FAMILY:
				if len(m.Data) >= diagMsgLen {
					each(m.Data)
				}
			}
		}
		if binary.NativeEndian.Uint16(req[6:])&unix.NLM_F_DUMP == 0 {
			return // one answer
		}
	}
}
