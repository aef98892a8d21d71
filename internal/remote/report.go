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
	// DiskFull: the last time the spool's disk was found full (relay/full),
	// and what it cost; SpaceLeft: the bytes left on it now, when fewer than
	// LowSpace.
	DiskFull  *Full   `json:"disk_full,omitempty"`
	SpaceLeft *uint64 `json:"space_left,omitempty"`
	// Hooks: each agent whose settings there run hookwire's hooks, or a
	// crossing surface's own binary's, and which.
	Hooks map[string][]string `json:"hooks"`
}

// LowSpace: with fewer bytes left on the spool's disk, doctor says it is
// full (a segment is 256 KiB; a hook's delivery up to one).
const LowSpace = 1 << 20
