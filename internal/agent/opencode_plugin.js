// hookwire's opencode plugin: opencode runs no command hooks, so this plugin
// hands each event a surface needs to one hookwire binary, as one JSON object
// on its stdin. `install --agent opencode` writes it, with the line below
// filled in, into opencode's plugins folder; uninstall removes the file.
//
// It needs no npm package (no import of @opencode-ai/plugin): Node's own
// modules only. opencode never waits for the binary: each event goes to
// hookwire's queue (plugin_queue.js, put in place of the queue line below),
// one detached process after the other, in order (the last, session.idle,
// comes right before `opencode run` exits).
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
import { closeSync, mkdtempSync, openSync, unlinkSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*hookwire*/ const config = { command: ["hookwire"], events: {} }
/*hookwire:queue*/

const maxText = 16384
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
  // The task tools running, by call: their session and prompt. A child
  // session's chat.message (the task's prompt, a hook opencode awaits) may
  // come before its session.created (a bus event, delivered apart): the
  // prompt names the parent then.
  const tasks = new Map()

  const enqueue = hookwireQueue(config.command, "opencode")

  // send queues an event, if a surface needs it.
  const send = (type, body, sessionID) => {
    if (!events.has(type)) return
    try {
      const payload = { type, directory, ...body }
      const parent = sessionID && sessions.get(sessionID)?.parentID
      if (parent) payload.parentID = parent
      const messages = sessionID && sessions.get(top(sessionID))?.messages
      if (messages?.size) payload.messages = [...messages.values()]
      enqueue(payload, events.get(type), directory)
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
