package transport

import "os"

// openAppend opens path for appending, never creating it. Windows appends
// with FILE_APPEND_DATA, which is atomic per write like O_APPEND.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
}
