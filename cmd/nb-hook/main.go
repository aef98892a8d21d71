// Command nb-hook relays a coding agent's hooks to the Coucou notch app.
package main

import (
	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
)

func main() { hook.Main(coucou.Relay()) }
