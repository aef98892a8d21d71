// Command quiettrue does nothing, as fast as a static Go program can: it
// stands in for a target program (noctalia) when the latency benchmark
// measures what a hook binary itself costs.
package main

func main() {}
