module github.com/hookwire/hookwire

go 1.26.1

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/Microsoft/go-winio v0.6.4
	github.com/alecthomas/kong v1.17.0
	github.com/mattn/go-isatty v0.0.24
	github.com/rogpeppe/go-internal v1.16.0
	github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
	github.com/tidwall/gjson v1.20.2
	golang.org/x/sys v0.50.0
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)

// A hook lives a few milliseconds: it has no use for the runtime following
// a container's CPU limit as it changes, which cost each of them a CPU count
// and a read of the cgroup's files when the runtime's monitor first ran
// (and a long-running relay, once a second while busy).
godebug updatemaxprocs=0
