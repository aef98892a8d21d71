// Package hookwire is a suite of small, static, fail-open programs that tell
// desktop status surfaces what coding agents are doing. The programs are in
// cmd/; the tests that exercise them end to end live here, at the root.
package hookwire
