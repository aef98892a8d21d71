// Command hookwire serves several surfaces from one hook: the agent spawns
// one process per event where it would spawn one per surface. It reads the
// event once and hands it to each surface chosen with --surfaces (all five
// by default), as that surface's own binary would handle it.
package main

import "github.com/hookwire/hookwire/internal/combined"

func main() { combined.Main() }
