// Command pulse-emit sends one event to the noctalia Pulse bar.
package main

import (
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/pulse"
)

func main() { hook.Main(pulse.Emit()) }
