// hookwire's plugin queue, shared by the plugins of agents that run no
// command hooks (opencode's, Kilo Code's, Pi's): each plugin's source has it
// in place of its `/*hookwire:queue*/` line when install writes the file
// (plugin.go). It uses the plugin's imports: spawn, closeSync, openSync,
// unlinkSync, writeSync, tmpdir, join.
//
// The agent never waits for the binary: each event is a detached process,
// killed after its timeout if the agent is still running (the binary keeps
// its own, shorter deadline). The processes run one after the other, in the
// order of the events (agents send some a few milliseconds apart; run at
// once, their processes overtake each other). The payload goes through a
// file written before the process starts and unlinked at once, kept open as
// the process's stdin, so that the last events (after which `opencode run`
// or `pi -p` exits at once) are not lost with a pipe nobody has written yet.

// A process the queue waits for longer is left to run on its own: a hookwire
// binary ends within 3 s of its start (its own hard deadline), and its start
// may take a while on a loaded machine.
const orderMs = 4000

// hookwireQueue returns a function that queues one payload for the command,
// to run in dir, killed after timeout milliseconds (none when 0). tag names
// the payload files (hookwire-<tag>-…).
const hookwireQueue = (command, tag) => {
  let seq = 0
  // One event at a time, in order: the next process starts when the one
  // before exits, or after orderMs at most (a slow binary never holds the
  // queue long). What is still queued when the agent exits starts at once;
  // on Unix each through sh, which first waits (orderMs at most) for the
  // process before it to end, so that the order holds.
  const queue = []
  let busy = false
  let running // the process last started, while it runs
  const next = () => {
    if (busy || queue.length === 0) return
    busy = true
    let done = false
    const finish = () => {
      if (done) return
      done = true
      busy = false
      running = undefined
      next()
    }
    const child = start(...queue.shift())
    if (!child) return finish()
    running = child
    child.on("exit", finish)
    child.on("error", finish)
    setTimeout(finish, orderMs).unref?.()
  }
  process.on("exit", () => {
    let after = running?.pid
    for (const [fd, timeout, dir] of queue.splice(0)) after = start(fd, timeout, dir, after)?.pid
  })

  // start runs the command with the payload file open as its stdin; after
  // a process id, once that process has ended.
  const start = (fd, timeout, dir, after) => {
    let argv = command
    if (after && process.platform !== "win32") {
      const wait = `i=0; while kill -0 ${after} 2>/dev/null && [ $i -lt ${orderMs / 10} ]; do sleep 0.01; i=$((i+1)); done; exec "$@"`
      argv = ["/bin/sh", "-c", wait, "sh", ...command]
    }
    try {
      const child = spawn(argv[0], argv.slice(1), {
        cwd: dir,
        detached: true,
        windowsHide: true,
        stdio: [fd, "ignore", "ignore"],
      })
      child.on("error", () => {})
      if (timeout > 0) {
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid, "SIGKILL")
          } catch {}
        }, timeout)
        timer.unref?.()
        child.on("exit", () => clearTimeout(timer))
      }
      child.unref()
      return child
    } catch {
      return undefined
    } finally {
      try {
        closeSync(fd)
      } catch {}
    }
  }

  return (payload, timeout, dir) => {
    const file = join(tmpdir(), `hookwire-${tag}-${process.pid}-${Date.now()}-${seq++}.json`)
    const w = openSync(file, "wx", 0o600)
    try {
      writeSync(w, JSON.stringify(payload) + "\n")
      queue.push([openSync(file, "r"), timeout, dir])
    } finally {
      closeSync(w)
      unlinkSync(file)
    }
    next()
  }
}
