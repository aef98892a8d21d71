package combined

// formerClient is hookwire-client, the warm path's client, which setup
// wrote in the hooks on Linux until every hook ran hookwire itself: setup
// rewrites its lines (install.Spec.Former), and doctor names what the warm
// path may have left behind (formerCheck, former_linux.go).
const formerClient = "hookwire-client"
