// hookwire's plugin queue, shared by the plugins of agents that run no
// command hooks (opencode's, Kilo Code's, Pi's): each plugin's source has it
// in place of its `/*hookwire:queue*/` line when install writes the file
// (plugin.go). It uses the plugin's imports: spawn, closeSync, mkdtempSync,
// openSync, unlinkSync, writeSync, tmpdir, join.
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
  // on Unix each through sh, which first waits for the process before it to
  // end (the k-th of them k times orderMs at most), so that the order holds.
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
  // The chain at exit: each waits until the one before has ended, which it
  // says by a directory it makes in a private one (an orphan's end cannot
  // be seen by its pid: it stays a zombie until the system reaps it, here a
  // second later). The k-th waits k times orderMs at most, counted from the
  // exit, where all of their waits start.
  process.on("exit", () => {
    const items = queue.splice(0)
    let marks
    try {
      if (items.length > 0 && process.platform !== "win32") marks = mkdtempSync(join(tmpdir(), `hookwire-${tag}-`))
    } catch {}
    let after = running?.pid
    items.forEach(([fd, timeout, dir], k) => {
      const mark = marks && join(marks, String(k))
      const chain = { after, waitMs: (k + 1) * orderMs, mark, clean: k === items.length - 1 && marks }
      if (k > 0 && marks) chain.after = undefined
      chain.prev = k > 0 && marks ? join(marks, String(k - 1)) : undefined
      after = start(fd, timeout, dir, chain)?.pid
    })
  })

  // start runs the command with the payload file open as its stdin. In the
  // exit's chain, on Unix, through sh: first it waits (waitMs at most) for
  // the process after to end and the mark prev to be made; once the command
  // has ended it makes its own mark, and the last removes the marks' folder.
  const start = (fd, timeout, dir, chain) => {
    let argv = command
    if (chain && process.platform !== "win32") {
      const wait = 'i=0; while { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; } || { [ -n "$2" ] && [ ! -d "$2" ]; }; do [ "$i" -lt "$5" ] || break; sleep 0.01; i=$((i+1)); done; ' +
        'm=$3 c=$4; shift 5; "$@"; s=$?; [ -n "$m" ] && mkdir "$m" 2>/dev/null; [ -n "$c" ] && rm -rf "$c"; exit $s'
      argv = ["/bin/sh", "-c", wait, "sh", String(chain.after ?? ""), chain.prev ?? "", chain.mark ?? "", chain.clean || "",
        String(Math.ceil(chain.waitMs / 10)), ...command]
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
