package hook

import "github.com/hookwire/hookwire/internal/agent"

// recordPayload, when set, is handed every payload as parsed. Only the live
// suite's build sets it (record_live.go, build tag hookwire_record), to learn
// what shape each agent's payloads have; released binaries leave it nil.
var recordPayload func(agent.Event)
