// Command hookwire-client is what hookwire setup writes in an agent's hooks
// on Linux in place of hookwire: it hands the event to a hookwire already
// started (internal/warm), and runs hookwire itself when none is there. Its
// arguments are hookwire's.
package main

import "github.com/hookwire/hookwire/internal/warm"

func main() { warm.Client() }
