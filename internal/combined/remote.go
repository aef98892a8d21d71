package combined

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/hookwire/hookwire/internal/coucou"
	"github.com/hookwire/hookwire/internal/hook"
	"github.com/hookwire/hookwire/internal/pulse"
	"github.com/hookwire/hookwire/internal/remote"
	"github.com/hookwire/hookwire/internal/vpet"
)

// RemoteBackoff, when set, replaces the first wait between connections
// (the test binary's seam: a reconnect in a test takes no second).
var RemoteBackoff time.Duration

// Executable is this binary's path, as a service runs it (a test's seam).
var Executable = os.Executable

// DefaultRelay is the command run on the agent's machine.
const DefaultRelay = "hookwire relay"

const remoteHelp = `Show on this desktop's surfaces (noctalia Pulse, Coucou, VPet) the agents that
run on other machines, over your own ssh: for each HOST it runs

  ssh -T -o BatchMode=yes -o ServerAliveInterval=10 -o ServerAliveCountMax=3 -- HOST hookwire relay

and carries out what the relay there sends, checked, with this desktop's own
settings; a permission asked there is answered from this desktop's Coucou.
It reconnects with backoff and runs until stopped (Ctrl-C, SIGTERM).

  hookwire remote devbox gpu-box        two hosts, named after their ssh alias
  hookwire remote --name box -- docker exec -i box hookwire relay
  hookwire remote install devbox        a user service (systemd, launchd) that runs it
  hookwire remote doctor devbox         check the whole path

See docs/remote.md.`

// remoteCLI is hookwire remote's grammar; the command after -- is taken out
// before kong reads the rest.
type remoteCLI struct {
	Connect   remoteConnect   `cmd:"" default:"withargs" hidden:"" help:"Connect to each HOST and carry out what its relay sends."`
	Install   remoteInstall   `cmd:"" help:"Run hookwire remote HOST as a user service (systemd user unit, launchd agent)."`
	Uninstall remoteUninstall `cmd:"" help:"Stop and remove that service."`
	Doctor    remoteDoctor    `cmd:"" help:"Check the path from HOST's agents to this desktop's surfaces."`
}

type remoteConnect struct {
	Name    string   `help:"The host's name on the surfaces (default: its ssh alias, cleaned to [a-z0-9-], at most 24 characters)."`
	Command string   `default:"${relay}" help:"What ssh runs on the host."`
	Once    bool     `help:"Connect once: exit when the connection ends, instead of reconnecting."`
	Hosts   []string `arg:"" optional:"" help:"ssh hosts (aliases from ~/.ssh/config, user@host, …)."`

	argv []string // the command after --
}

// remoteRun is what a command's Run gets.
type remoteRun struct {
	stdout, stderr io.Writer
	argv           []string
}

type remoteExit int

// Remote runs hookwire remote with its arguments and returns the exit
// status: 2 for a usage error, 1 for a failure.
func Remote(args []string, _ *os.File, stdout, stderr io.Writer) (code int) {
	var argv []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, argv = args[:i], args[i+1:]
	}
	cli := &remoteCLI{}
	parser, err := kong.New(cli, kong.Name("hookwire remote"), kong.Description(remoteHelp),
		kong.Writers(stdout, stderr), kong.Vars{"relay": DefaultRelay},
		kong.Exit(func(c int) { panic(remoteExit(c)) }))
	if err != nil {
		panic(err) // a grammar bug, caught by every test
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(remoteExit)
			if !ok {
				panic(r)
			}
			code = int(e)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "hookwire remote: %v (see hookwire remote --help)\n", err)
		return 2
	}
	if err := kctx.Run(&remoteRun{stdout: stdout, stderr: stderr, argv: argv}); err != nil {
		var usage usageError
		fmt.Fprintf(stderr, "hookwire remote: %v\n", err)
		if errors.As(err, &usage) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a mistake in the arguments: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Run connects to every host until SIGINT or SIGTERM.
func (c *remoteConnect) Run(r *remoteRun) error {
	hosts, err := remoteHosts(c.Name, c.Command, c.Hosts, r.argv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := desktop(r.stderr)
	d.Once = c.Once
	d.Run(ctx, hosts)
	return nil
}

// desktop is the client with this desktop's own settings.
func desktop(stderr io.Writer) *remote.Desktop {
	return &remote.Desktop{
		Surfaces: map[string]remote.Surface{
			remote.Pulse:  pulse.Remote(os.Getenv),
			remote.Coucou: coucou.Remote(os.Getenv),
			remote.VPet:   vpet.Remote(os.Getenv),
		},
		Version: hook.BuildVersion(),
		Log:     os.Getenv(hook.EnvLog),
		Stderr:  stderr,
		Backoff: RemoteBackoff,
	}
}

// sshArgv is the command that reaches a host's relay: the user's own ssh
// (their config, keys, agent), never asking (BatchMode), no terminal,
// ending a connection that stops answering within 30 s. The -- keeps a
// host from being read as an option.
func sshArgv(host, command string) []string {
	return []string{"ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
		"--", host, command}
}

// remoteHosts are the hosts the arguments name, each with its name and
// command.
func remoteHosts(name, command string, hosts, argv []string) ([]remote.Host, error) {
	if len(argv) > 0 {
		if len(hosts) > 0 {
			return nil, usagef("either HOST… or -- COMMAND, not both")
		}
		if name == "" {
			return nil, usagef("-- COMMAND needs --name NAME: the name its sessions carry on this desktop")
		}
		n := remote.HostName(name)
		if n == "" {
			return nil, usagef("--name %q has nothing of [a-z0-9-]", name)
		}
		return []remote.Host{{Name: n, Argv: argv}}, nil
	}
	if len(hosts) == 0 {
		return nil, usagef("name a HOST (or -- COMMAND)")
	}
	if name != "" && len(hosts) > 1 {
		return nil, usagef("--name names one host; %d are given", len(hosts))
	}
	if strings.TrimSpace(command) == "" {
		return nil, usagef("--command is empty")
	}
	var out []remote.Host
	for _, h := range hosts {
		if h == "" || strings.HasPrefix(h, "-") {
			return nil, usagef("%q is not a host", h)
		}
		n := remote.HostName(h)
		if name != "" {
			n = remote.HostName(name)
		}
		if n == "" {
			return nil, usagef("%q has nothing of [a-z0-9-] to name it by: give --name", h)
		}
		if slices.ContainsFunc(out, func(o remote.Host) bool { return o.Name == n }) {
			return nil, usagef("two hosts would both be named %q on the surfaces", n)
		}
		out = append(out, remote.Host{Name: n, Argv: sshArgv(h, command)})
	}
	return out, nil
}
