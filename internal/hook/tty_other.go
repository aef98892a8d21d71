//go:build !unix

package hook

import "os"

// ttyName has no portable answer here: Windows Terminal's WT_SESSION names
// the pane instead.
func ttyName(*os.File) string { return "" }
