// Package rawfile opens regular files as os.OpenFile does, without trying
// the runtime's poller on them. os.OpenFile registers every file it opens
// with the poller; a regular file cannot wait there, so on Linux each open
// pays a failed epoll_ctl and four fcntl more, at a system call's price on a
// small VM. A hook opens a dozen state files and transcripts an event.
//
// What it opens is a blocking *os.File: not for a FIFO, a socket or a
// terminal, which want os.OpenFile (and its deadlines).
package rawfile
