//go:build race

package live

// raceBuild says the suite runs under the race detector: its fakes and the
// scripted API, in this process, answer slower.
const raceBuild = true
