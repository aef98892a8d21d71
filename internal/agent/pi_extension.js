// hookwire's Pi extension: Pi runs no command hooks, so this extension hands
// each event a surface needs to one hookwire binary, as one JSON object on
// its stdin. `install --agent pi` writes it, with the line below filled in,
// into Pi's extensions folder (~/.pi/agent/extensions/); uninstall removes
// the file. Pi loads it as it is (plain JavaScript, no build).
//
// It needs no npm package (no import of @earendil-works/pi-coding-agent):
// Node's own modules only. Pi never waits for the binary: each event is a
// detached process, killed after the deadline if Pi is still running (the
// binary keeps its own, shorter one). The processes run one after the other,
// in the order of the events (Pi sends some a few milliseconds apart; run at
// once, their processes overtake each other). The payload goes through a
// file written before the process starts, so that the last events
// (agent_settled and session_shutdown, after which `pi -p` exits at once)
// are not lost with a pipe nobody has written yet.
//
// What it hands over (see internal/agent/pi.go for what each means), each
// with `type` (the event's name), `cwd`, `sessionId` and `sessionFile` (the
// session's transcript, none for --no-session):
//   session_start: reason ("startup", "new", "resume", …);
//   before_agent_start: prompt (a person's prompt only, not a run an
//     extension starts with a message of its own);
//   tool_call: toolName, toolCallId, input;
//   tool_execution_end: toolName, toolCallId, isError, and for a tool in
//     error its message (the last line of its result: Pi's own words, such
//     as bash's "Command exited with code 3" after the command's output),
//     never its output;
//   agent_settled: aborted, and from the run's last assistant message its
//     answer (the text), model, stopReason and errorMessage;
//   session_before_compact: reason;
//   session_shutdown: reason ("quit", "new", "resume", "fork", "reload").
// Large texts are cut.
import { spawn } from "node:child_process"
import { closeSync, openSync, unlinkSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*hookwire*/ const config = { command: ["hookwire"], events: {} }

const maxText = 16384
// A process the queue waits for longer is left to run on its own: a hookwire
// binary ends within 3 s of its start (its own hard deadline), and its start
// may take a while on a loaded machine.
const orderMs = 4000

export default function hookwire(pi) {
  const events = new Map(Object.entries(config.events)) // name -> timeout (ms)
  let seq = 0
  let last // the run's last assistant message
  let cwd = process.cwd()

  // One event at a time, in order: the next process starts when the one
  // before exits, or after orderMs at most (a slow binary never holds the
  // queue long). What is still queued when Pi exits (`pi -p` exits right
  // after session_shutdown) starts at once; on Unix each through sh, which
  // first waits (orderMs at most) for the process before it to end, so that
  // the order holds.
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

  // start runs the command with the payload file open as its stdin, in the
  // session's directory; after a process id, once that process has ended.
  const start = (fd, timeout, dir, after) => {
    let argv = config.command
    if (after && process.platform !== "win32") {
      const wait = `i=0; while kill -0 ${after} 2>/dev/null && [ $i -lt ${orderMs / 10} ]; do sleep 0.01; i=$((i+1)); done; exec "$@"`
      argv = ["/bin/sh", "-c", wait, "sh", ...config.command]
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

  // send queues an event: its payload written to a file that is unlinked at
  // once, kept open for the process to read.
  const send = (type, body, ctx) => {
    if (!events.has(type)) return
    try {
      const sm = ctx?.sessionManager
      if (ctx?.cwd) cwd = ctx.cwd
      const payload = { type, cwd, sessionId: sm?.getSessionId?.(), sessionFile: sm?.getSessionFile?.(), ...body }
      const file = join(tmpdir(), `hookwire-pi-${process.pid}-${Date.now()}-${seq++}.json`)
      const w = openSync(file, "wx", 0o600)
      try {
        writeSync(w, JSON.stringify(payload) + "\n")
        queue.push([openSync(file, "r"), events.get(type), cwd])
      } finally {
        closeSync(w)
        unlinkSync(file)
      }
      next()
    } catch {}
  }

  const cut = (s) => (typeof s === "string" && s.length > maxText ? s.slice(0, maxText) : s)
  const text = (content) =>
    typeof content === "string"
      ? content
      : (content || []).filter((c) => c?.type === "text").map((c) => c.text).join("")
  const firstLine = (s) => (typeof s === "string" ? s.split("\n", 1)[0] : undefined)
  const lastLine = (s) => (typeof s === "string" ? s.trimEnd().split("\n").pop() : undefined)

  // Each handler is a notification: it returns nothing, so Pi goes on as if
  // the extension were not there.
  const on = (name, fn) =>
    pi.on(name, (event, ctx) => {
      try {
        fn(event || {}, ctx)
      } catch {}
    })

  on("session_start", (e, ctx) => send("session_start", { reason: e.reason }, ctx))
  on("before_agent_start", (e, ctx) => {
    last = undefined
    if (e.messageType && e.messageType !== "user") return
    send("before_agent_start", { prompt: cut(e.prompt) }, ctx)
  })
  on("tool_call", (e, ctx) =>
    send("tool_call", { toolName: e.toolName, toolCallId: e.toolCallId, input: e.input }, ctx),
  )
  on("tool_execution_end", (e, ctx) =>
    send("tool_execution_end", {
      toolName: e.toolName,
      toolCallId: e.toolCallId,
      isError: !!e.isError,
      ...(e.isError && { error: cut(lastLine(text(e.result?.content))) }),
    }, ctx),
  )
  on("message_end", (e) => {
    if (e.message?.role === "assistant") last = e.message
  })
  on("agent_settled", (e, ctx) => {
    const m = last || {}
    last = undefined
    send("agent_settled", {
      aborted: !!e.aborted,
      answer: cut(text(m.content)) || undefined,
      model: m.model,
      stopReason: m.stopReason,
      errorMessage: cut(firstLine(m.errorMessage)),
    }, ctx)
  })
  on("session_before_compact", (e, ctx) => send("session_before_compact", { reason: e.reason }, ctx))
  on("session_shutdown", (e, ctx) => send("session_shutdown", { reason: e.reason }, ctx))
}
