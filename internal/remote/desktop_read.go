package remote

import (
	"bufio"
	"errors"
)

// readLine reads one line without its newline, at most max bytes; a
// longer one is read to its end and dropped whole (errTooLong), so that the
// next line starts where it should. The line is valid until the next call.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else if len(line) == 0 && err == nil {
				line = chunk // the common case: no copy
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errTooLong
			}
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue // line holds a copy: the buffer is reused
		default:
			// EOF: a last line without its newline is not a line (the
			// relay died writing it).
			return nil, err
		}
	}
}
