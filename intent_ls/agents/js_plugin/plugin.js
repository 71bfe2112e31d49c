// intent-ls: every tool call of this agent goes through `intent-ls hook` (written by
// `intent-ls hooks install`; `intent-ls doctor` checks that this file is unchanged).
// A refusal, and any failure to get an answer, throws: the tool does not run.
import { spawn } from "node:child_process"

const COMMAND = __COMMAND__
const TIMEOUT_MS = __TIMEOUT_MS__

function ask(payload, cwd) {
  return new Promise((resolve, reject) => {
    let out = ""
    let err = ""
    let child
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] })
    } catch (error) {
      reject(error)
      return
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`no answer within ${TIMEOUT_MS} ms`))
    }, TIMEOUT_MS)
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (status) => {
      clearTimeout(timer)
      let answer
      try {
        answer = JSON.parse(out)
      } catch {
        reject(new Error(`exit ${status}, no JSON answer: ${err.trim().split("\n").pop() ?? ""}`))
        return
      }
      if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
        reject(new Error(`exit ${status}, an answer that is not a JSON object`))
        return
      }
      resolve(answer)
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

function refused(why) {
  return new Error(
    `[intent-ls] governance-error: the intent-ls hook could not check this action (${why}), ` +
      "so it is refused. Next step: tell the human; `intent-ls doctor` shows what is wrong.",
  )
}

async function answer(payload, cwd) {
  try {
    const found = await ask(payload, cwd)
    const specific = found.hookSpecificOutput
    return specific !== null && typeof specific === "object" ? specific : {}
  } catch (error) {
    throw refused(error instanceof Error ? error.message : String(error))
  }
}

export const IntentLs = async ({ directory }) => {
  const models = new Map()
  // What the session-start answer told the model, per session: asked once, then repeated
  // in every system prompt (the agent builds it afresh for each model call).
  const told = new Map()
  const payload = (event, input, args) => ({
    hook_event_name: event,
    session_id: input.sessionID,
    cwd: directory,
    tool_name: input.tool,
    tool_input: args ?? {},
    tool_use_id: input.callID,
    model: models.get(input.sessionID),
  })
  return {
    "chat.params": async (input) => {
      const id = input.model?.id
      if (typeof id === "string" && input.agent !== "title") models.set(input.sessionID, id)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const session = input.sessionID
      if (typeof session !== "string" || !Array.isArray(output.system)) return
      if (!told.has(session)) {
        const start = { hook_event_name: "SessionStart", session_id: session, cwd: directory }
        told.set(
          session,
          answer(start, directory).then(
            (specific) => specific.additionalContext,
            (error) => error.message,
          ),
        )
      }
      const context = await told.get(session)
      if (typeof context === "string" && context) output.system.push(context)
    },
    "tool.execute.before": async (input, output) => {
      const specific = await answer(payload("PreToolUse", input, output.args), directory)
      const decision = specific.permissionDecision
      if (decision !== undefined && decision !== "allow") {
        throw new Error(String(specific.permissionDecisionReason ?? "refused by intent-ls"))
      }
      const rewritten = specific.updatedInput
      if (rewritten !== null && typeof rewritten === "object" && output.args) {
        // The tool runs with this very object: change it in place.
        for (const key of Object.keys(output.args)) delete output.args[key]
        Object.assign(output.args, rewritten)
      }
    },
    "tool.execute.after": async (input, output) => {
      const specific = await answer(payload("PostToolUse", input, input.args), directory)
      const context = specific.additionalContext
      if (typeof context === "string" && context && output && typeof output.output === "string") {
        output.output = `${output.output}\n\n${context}`
      }
    },
  }
}
