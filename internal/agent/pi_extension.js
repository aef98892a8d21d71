// hookwire's Pi extension: Pi runs no command hooks, so this extension hands
// each event a surface needs to one hookwire binary, as one JSON object on
// its stdin. `install --agent pi` writes it, with the line below filled in,
// into Pi's extensions folder (~/.pi/agent/extensions/); uninstall removes
// the file. Pi loads it as it is (plain JavaScript, no build).
//
// It needs no npm package (no import of @earendil-works/pi-coding-agent):
// Node's own modules only. Pi never waits for the binary: each event goes to
// hookwire's queue (plugin_queue.js, put in place of the queue line below),
// one detached process after the other, in order (the last,
// session_shutdown, comes right before `pi -p` exits).
//
// What it hands over (see internal/agent/pi.go for what each means), each
// with `type` (the event's name), `cwd`, `sessionId` and `sessionFile` (the
// session's transcript, none for --no-session):
//   session_start: reason ("startup", "new", "resume", …);
//   before_agent_start: prompt (a person's prompt only, not a run an
//     extension starts with a message of its own);
//   tool_call: toolName, toolCallId, input;
//   tool_execution_end: toolName, toolCallId, input (the one its
//     tool_call had: Pi's own event has none, and a surface shows what the
//     tool did at its end too), isError, and for a tool in error its message
//     (the last line of its result: Pi's own words, such as bash's "Command
//     exited with code 3" after the command's output), never its output;
//   agent_settled: aborted, and from the run's last assistant message its
//     answer (the text), model, stopReason and errorMessage;
//   session_before_compact: reason;
//   session_shutdown: reason ("quit", "new", "resume", "fork", "reload").
// Large texts are cut.
import { spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, unlinkSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/*hookwire*/ const config = { command: ["hookwire"], events: {} }
/*hookwire:queue*/

const maxText = 16384

export default function hookwire(pi) {
  const events = new Map(Object.entries(config.events)) // name -> timeout (ms)
  let last // the run's last assistant message
  let cwd = process.cwd()

  const enqueue = hookwireQueue(config.command, "pi")

  // send queues an event, if a surface needs it, to run in the session's
  // directory.
  const send = (type, body, ctx) => {
    if (!events.has(type)) return
    try {
      const sm = ctx?.sessionManager
      if (ctx?.cwd) cwd = ctx.cwd
      const payload = { type, cwd, sessionId: sm?.getSessionId?.(), sessionFile: sm?.getSessionFile?.(), ...body }
      enqueue(payload, events.get(type), cwd)
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
  // Each tool's input, from its call to its end (whether or not tool_call
  // is handed over): what the end hands over beside its outcome.
  const inputs = new Map()
  on("tool_call", (e, ctx) => {
    if (e.toolCallId !== undefined) inputs.set(e.toolCallId, e.input)
    send("tool_call", { toolName: e.toolName, toolCallId: e.toolCallId, input: e.input }, ctx)
  })
  on("tool_execution_end", (e, ctx) => {
    const input = inputs.get(e.toolCallId)
    inputs.delete(e.toolCallId)
    send("tool_execution_end", {
      toolName: e.toolName,
      toolCallId: e.toolCallId,
      input,
      isError: !!e.isError,
      ...(e.isError && { error: cut(lastLine(text(e.result?.content))) }),
    }, ctx)
  })
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
