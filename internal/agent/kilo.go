package agent

import (
	"slices"
	"time"
)

// Kilo Code CLI is an opencode fork: the same plugin API (event,
// chat.message, tool.execute.before/after, permission.ask, which the plugin
// does not use: opencode never calls it), the same bus events and payloads
// (its permission and question events taken as opencode's, not recorded
// on Kilo), with one more
// (session.drained), its own folders (~/.config/kilo/plugins/, a project's
// .kilo/plugins/) and its own name. So it is opencode's dialect under
// another name: install writes the same plugin, its command run with
// --agent kilo, and the payloads read the same way (refineOpencode; the
// burn in the plugin's messages). Observed on 7.7.9, the binary that
// @kilocode/cli 7.8.1 runs on Linux (testdata/agents/kilo-7.7.9).
var kilo = func() *Dialect {
	d := *opencode
	d.Agent = "kilo"
	d.Aliases = []string{"kilocode", "kilo-code"}
	d.Title = "Kilo Code CLI"
	d.Product = "kilo-code"
	// session.drained: Kilo's own, after the session's work has settled
	// (its queue drained); session.idle still ends the turn.
	d.Events = append(slices.Clone(opencode.Events), Name{"session.drained", Unknown, false})
	d.Settings = &Settings{
		User: []string{".config", "kilo", "plugins"}, Project: []string{".kilo", "plugins"},
		HomeVar: "XDG_CONFIG_HOME", HomeRel: []string{"kilo", "plugins"},
		Shape: PluginFile, Unit: time.Millisecond,
		Plugin: opencode.Settings.Plugin,

		// Its commands: one on PATH tells hookwire setup it is installed.
		Commands: []string{"kilo", "kilocode"},
	}
	return &d
}()
