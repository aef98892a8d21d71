package transcript

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// fileID identifies the file behind a path, as its volume's serial number
// and its index on the volume (Windows's device and inode): a transcript
// replaced by another file of the same name (a rename over it) is read
// from the start.
func fileID(f *os.File, _ fs.FileInfo) (dev, ino uint64) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, 0
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
}
