package install

import "github.com/hookwire/hookwire/internal/hook"

// Show prints a finding as doctor does: its mark, what, and the fix.
func Show(con *hook.Console, f Finding) { show(con, f) }
