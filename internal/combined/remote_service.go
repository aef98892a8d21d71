package combined

import "errors"

type remoteInstall struct {
	Host    string `arg:"" help:"The ssh host."`
	Name    string `help:"The host's name on the surfaces (default: its ssh alias, cleaned)."`
	Command string `default:"${relay}" help:"What ssh runs on the host."`
	DryRun  bool   `name:"dry-run" help:"Print the service file and the commands; change nothing."`
}

type remoteUninstall struct {
	Host   string `arg:"" help:"The ssh host (or the --name it was installed with)."`
	Name   string `help:"The name it was installed with."`
	DryRun bool   `name:"dry-run" help:"Print what would be done; change nothing."`
}

type remoteDoctor struct {
	Host    string `arg:"" help:"The ssh host."`
	Command string `default:"${relay}" help:"What ssh runs on the host."`
}

func (c *remoteInstall) Run(r *remoteRun) error   { return errors.New("not yet") }
func (c *remoteUninstall) Run(r *remoteRun) error { return errors.New("not yet") }
func (c *remoteDoctor) Run(r *remoteRun) error    { return errors.New("not yet") }
