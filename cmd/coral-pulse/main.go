// Command coral-pulse shows what a coding agent does on the Coral dashboard.
package main

import (
	"github.com/hookwire/hookwire/internal/coral"
	"github.com/hookwire/hookwire/internal/hook"
)

func main() { hook.Main(coral.Pulse()) }
