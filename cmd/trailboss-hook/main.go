// Command trailboss-hook puts a coding agent's session in the Trail Boss
// queue while it waits on the human.
package main

import (
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/trailboss"
)

func main() { hook.Main(trailboss.Hook()) }
