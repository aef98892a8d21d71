package remote

// Report is what `hookwire relay --doctor` prints on the agent's machine
// (one JSON object), and what `hookwire remote doctor` reads over ssh.
type Report struct {
	Version  string `json:"version"` // the relay binary's
	Wire     int    `json:"wire"`    // its wire Version
	RelayDir string `json:"relay_dir"`
	// SetUp: the directory exists, so the hooks there hand over.
	SetUp   bool   `json:"set_up"`
	Problem string `json:"problem,omitempty"`
	// Running: a relay listens now (a desktop is connected).
	Running bool     `json:"running"`
	Backlog *Backlog `json:"backlog,omitempty"`
	// Hooks: each agent whose settings there run hookwire's hooks, or a
	// crossing surface's own binary's, and which.
	Hooks map[string][]string `json:"hooks"`
}
