// hookwire's opencode plugin: opencode runs no command hooks, so this plugin
// hands each event a surface needs to one hookwire binary, as one JSON object
// on its stdin. `install --agent opencode` writes it, with the line below
// filled in, into opencode's plugins folder; uninstall removes the file.
//
// It needs no npm package (no import of @opencode-ai/plugin): Node's own
// modules only. opencode never waits for the binary: each event is a
// detached process, killed after the deadline if opencode is still running
// (the binary keeps its own, shorter one). The processes run one after the
// other, in the order of the events (opencode sends some a few milliseconds
// apart; run at once, their processes overtake each other). The payload goes
// through a file written before the process starts, so that the last event
// (session.idle, after which `opencode run` exits at once) is not lost with
// a pipe nobody has written yet.
//
// What it hands over (see internal/agent/opencode.go for what each means):
//   session.created, permission.asked, permission.replied, question.asked:
//     the bus event as opencode sends it, {id, type, properties};
//   chat.message, tool.execute.before, tool.execute.after: the hook's
//     {type, input, output};
//   message.part.updated: only a tool part that ended in error (a refused or
//     failed tool gets no tool.execute.after), never the streamed text;
//   session.error: once per turn (under load opencode 1.18.33 has said it
//     twice for one API error);
//   session.idle: once per turn, with `answer`, the turn's last text part
//     (opencode streams it in message.part.updated, each update the whole
//     part so far), and `model`, the turn's (chat.message's).
// Every payload of a session with a turn under way also has `messages`: the
// turn's assistant messages so far (a child session's included, with its
// sessionID), each {id, created, model, tokens} with the latest tokens
// opencode's message.updated gave it, for the burn; the turn's last event
// carries them all, whichever events a binary skips.
// Every payload also has `directory` (the project) and, for a child session
// (a subagent's), `parentID`; session.idle and session.error under
// `opencode run` have `subcommand: "run"`. Large outputs are cut.
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
// `opencode run` (its first word that is not an option) answers one prompt
// and exits: no session end follows its turn's end, or its error.
const run = process.argv.slice(2).find((a) => !a.startsWith("-")) === "run"

export const hookwire = async ({ directory }) => {
  const events = new Map(Object.entries(config.events)) // name -> timeout (ms)
  const sessions = new Map() // sessionID -> {parentID, turn, answer}
  const session = (id) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { parentID: undefined, turn: false, answer: undefined, model: undefined, messages: new Map() }))
    return s
  }
  // The session at the top of id's (a subagent's parent's, or its own).
  const top = (id) => {
    for (let i = 0; i < 8 && sessions.get(id)?.parentID; i++) id = sessions.get(id).parentID
    return id
  }
  let seq = 0
  // The task tools running, by call: their session and prompt. A child
  // session's chat.message (the task's prompt, a hook opencode awaits) may
  // come before its session.created (a bus event, delivered apart): the
  // prompt names the parent then.
  const tasks = new Map()

  // One event at a time, in order: the next process starts when the one
  // before exits, or after orderMs at most (a slow binary never holds the
  // queue long). What is still queued when opencode exits (`opencode run`
  // exits right after its last event, session.idle or session.error)
  // starts at once; on Unix each through sh, which first waits (orderMs at
  // most) for the process before it to end, so that the order holds.
  const queue = []
  let busy = false
  let last // the process last started, while it runs
  const next = () => {
    if (busy || queue.length === 0) return
    busy = true
    let done = false
    const finish = () => {
      if (done) return
      done = true
      busy = false
      last = undefined
      next()
    }
    const child = start(...queue.shift())
    if (!child) return finish()
    last = child
    child.on("exit", finish)
    child.on("error", finish)
    setTimeout(finish, orderMs).unref?.()
  }
  process.on("exit", () => {
    let after = last?.pid
    for (const [fd, timeout] of queue.splice(0)) after = start(fd, timeout, after)?.pid
  })

  // start runs the command with the payload file open as its stdin; after
  // a process id, once that process has ended.
  const start = (fd, timeout, after) => {
    let argv = config.command
    if (after && process.platform !== "win32") {
      const wait = `i=0; while kill -0 ${after} 2>/dev/null && [ $i -lt ${orderMs / 10} ]; do sleep 0.01; i=$((i+1)); done; exec "$@"`
      argv = ["/bin/sh", "-c", wait, "sh", ...config.command]
    }
    try {
      const child = spawn(argv[0], argv.slice(1), {
        cwd: directory,
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
  const send = (type, body, sessionID) => {
    if (!events.has(type)) return
    try {
      const payload = { type, directory, ...body }
      const parent = sessionID && sessions.get(sessionID)?.parentID
      if (parent) payload.parentID = parent
      const messages = sessionID && sessions.get(top(sessionID))?.messages
      if (messages?.size) payload.messages = [...messages.values()]
      const file = join(tmpdir(), `hookwire-opencode-${process.pid}-${Date.now()}-${seq++}.json`)
      const w = openSync(file, "wx", 0o600)
      try {
        writeSync(w, JSON.stringify(payload) + "\n")
        queue.push([openSync(file, "r"), events.get(type)])
      } finally {
        closeSync(w)
        unlinkSync(file)
      }
      next()
    } catch {}
  }

  const cut = (s) => (typeof s === "string" && s.length > maxText ? s.slice(0, maxText) : s)

  return {
    event: async ({ event }) => {
      try {
        const p = event.properties || {}
        switch (event.type) {
          case "session.created":
            session(p.sessionID).parentID ??= p.info?.parentID
            send(event.type, event, p.sessionID)
            break
          case "message.part.updated": {
            const part = p.part || {}
            if (part.type === "text" && part.time?.end && !part.synthetic && !part.ignored) {
              session(part.sessionID).answer = part.text
            } else if (part.type === "tool" && part.state?.status === "error") {
              tasks.delete(part.callID)
              send(event.type, event, part.sessionID)
            }
            break
          }
          case "message.updated": {
            // An assistant message's tokens, once it has any (opencode
            // updates a message several times; the last figures stand).
            const m = p.info || {}
            const t = m.tokens || {}
            const c = t.cache || {}
            if (m.role !== "assistant" || !(t.input || t.output || t.reasoning || c.read || c.write)) break
            const root = top(m.sessionID)
            session(root).messages.set(m.id, {
              id: m.id,
              created: m.time?.created,
              model: m.modelID,
              ...(root !== m.sessionID && { sessionID: m.sessionID }),
              tokens: { input: t.input, output: t.output, reasoning: t.reasoning, cache: { read: c.read, write: c.write } },
            })
            break
          }
          case "session.error": {
            const s = session(p.sessionID)
            if (!s.turn) break // one error ends a turn: no other is handed over
            s.turn = false
            const data = p.error?.data || {}
            send(event.type, {
              ...event,
              ...(run && { subcommand: "run" }),
              properties: {
                sessionID: p.sessionID,
                error: p.error && {
                  name: p.error.name,
                  data: { message: cut(data.message), statusCode: data.statusCode, isRetryable: data.isRetryable },
                },
              },
            }, p.sessionID)
            s.messages.clear()
            break
          }
          case "session.idle": {
            const s = session(p.sessionID)
            if (!s.turn) break // after an error, opencode says idle twice more
            s.turn = false
            send(event.type, { ...event, answer: cut(s.answer), model: s.model, ...(run && { subcommand: "run" }) }, p.sessionID)
            s.answer = undefined
            s.messages.clear()
            break
          }
          default:
            send(event.type, event, p.sessionID)
        }
      } catch {}
    },
    "chat.message": async (input, output) => {
      try {
        const known = sessions.has(input.sessionID)
        const s = session(input.sessionID)
        if (!known) {
          const text = (output.parts || []).find((x) => x.type === "text")?.text
          for (const t of tasks.values()) if (t.prompt === text && t.parent !== input.sessionID) s.parentID = t.parent
        }
        s.turn = true
        s.answer = undefined
        s.model = output.message?.model?.modelID
        send("chat.message", {
          input,
          output: {
            message: output.message,
            parts: (output.parts || []).filter((x) => x.type === "text").map((x) => ({ type: x.type, text: cut(x.text) })),
          },
        }, input.sessionID)
      } catch {}
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool === "task") tasks.set(input.callID, { parent: input.sessionID, prompt: output.args?.prompt })
      send("tool.execute.before", { input, output: { args: output.args } }, input.sessionID)
    },
    "tool.execute.after": async (input, output) => {
      tasks.delete(input.callID)
      try {
        const exit = output.metadata?.exit
        send("tool.execute.after", {
          input,
          output: {
            title: output.title,
            output: cut(output.output),
            metadata: exit === undefined ? {} : { exit },
          },
        }, input.sessionID)
      } catch {}
    },
  }
}
