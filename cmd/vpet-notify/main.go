// Command vpet-notify tells the VPet desktop pet what a coding agent's run is
// doing, through VPet's notify sink.
package main

import (
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/vpet"
)

func main() { hook.Main(vpet.Notify()) }
