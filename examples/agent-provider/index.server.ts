// An agent provider (provider protocol v1): `paseo agent create --provider shell-helper`.
// Each line of a prompt is a step: `$ COMMAND` asks permission and, if allowed, runs COMMAND in
// the session's directory and reports it as a shell tool call; any other line is answered with
// its words reversed. Every session lives in this plugin's isolate until the daemon closes it.
import { execFile } from "node:child_process";
import type { PluginServerContext } from "@getpaseo/plugin/server";
import {
  negotiateProviderCapabilities,
  type ProviderConnection,
  type ProviderEvent,
  type ProviderInput,
  type ProviderPermissionResponse,
} from "@getpaseo/plugin/server/provider";

interface Session {
  cwd: string;
  env: Readonly<Record<string, string>>;
  turns: number;
  /** Permission requests waiting for the daemon's answer, by id. */
  waiting: Map<string, (response: ProviderPermissionResponse) => void>;
  /** Set by `session.interrupt`: the running turn stops at its next step. */
  interrupted: boolean;
}

function run(command: string, cwd: string, env: Readonly<Record<string, string>>) {
  return new Promise<{ output: string; exitCode: number }>((resolve) => {
    execFile("sh", ["-c", command], { cwd, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const exitCode = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ output: `${stdout}${stderr}`.trimEnd(), exitCode });
    });
  });
}

function connection(offered: readonly string[]): ProviderConnection {
  const listeners = new Set<(event: ProviderEvent) => void>();
  const emit = (event: ProviderEvent) => {
    for (const listener of listeners) listener(event);
  };
  const sessions = new Map<string, Session>();

  async function turn(sessionId: string, session: Session, text: string, clientMessageId: string) {
    const turnId = `${sessionId}-turn-${++session.turns}`;
    session.interrupted = false;
    emit({ type: "session.prompt_result", sessionId, clientMessageId, result: { type: "turn", turnId } });
    emit({ type: "session.turn", sessionId, turnId, state: "started" });
    let step = 0;
    for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
      if (session.interrupted) {
        emit({ type: "session.turn", sessionId, turnId, state: "canceled" });
        return;
      }
      const id = `${turnId}-${++step}`;
      if (!line.startsWith("$ ")) {
        const reply = line.split(/\s+/).reverse().join(" ");
        emit({ type: "timeline.item", sessionId, item: { id, type: "assistant_message", text: `Backwards: ${reply}` } });
        continue;
      }
      const command = line.slice(2);
      const answer = new Promise<ProviderPermissionResponse>((resolve) => session.waiting.set(id, resolve));
      emit({ type: "session.permission", sessionId, request: { id, name: "shell", kind: "tool", title: `Run ${command}`, input: { command } } });
      const response = await answer;
      if (response.behavior === "deny") {
        const error = response.message ?? "Permission denied";
        emit({ type: "timeline.item", sessionId, item: { id, type: "tool_call", callId: id, name: "shell", status: "failed", error, detail: { type: "shell", command } } });
        continue;
      }
      const { output, exitCode } = await run(command, session.cwd, session.env);
      const status = exitCode === 0 ? "completed" : "failed";
      const detail = { type: "shell" as const, command, cwd: session.cwd, output, exitCode };
      emit({
        type: "timeline.item",
        sessionId,
        item: status === "completed"
          ? { id, type: "tool_call", callId: id, name: "shell", status, error: null, detail }
          : { id, type: "tool_call", callId: id, name: "shell", status, error: `exit code ${exitCode}`, detail },
      });
    }
    emit({ type: "session.usage", sessionId, turnId, usage: { inputTokens: text.length, outputTokens: step } });
    emit({ type: "session.turn", sessionId, turnId, state: "completed" });
  }

  return {
    version: 1,
    capabilities: negotiateProviderCapabilities(offered, ["prompt.message", "permission"]),
    async send(input: ProviderInput) {
      switch (input.type) {
        case "session.open":
          sessions.set(input.sessionId, { cwd: input.config.cwd, env: input.config.env, turns: 0, waiting: new Map(), interrupted: false });
          emit({ type: "session.opened", requestId: input.requestId, sessionId: input.sessionId, capabilities: ["prompt.message", "permission"], restoration: "core", cwd: input.config.cwd });
          emit({ type: "request.completed", requestId: input.requestId });
          return;
        case "session.prompt": {
          const session = sessions.get(input.sessionId);
          if (!session) throw new Error(`Unknown session: ${input.sessionId}`);
          const { input: prompt, clientMessageId } = input.prompt;
          const text = prompt.type === "message" ? prompt.content.map((c) => (c.type === "text" ? c.text : "")).join("") : `/${prompt.name} ${prompt.arguments}`;
          void turn(input.sessionId, session, text, clientMessageId);
          return;
        }
        case "session.permission": {
          const waiting = sessions.get(input.sessionId)?.waiting;
          waiting?.get(input.permissionId)?.(input.response);
          waiting?.delete(input.permissionId);
          return;
        }
        case "session.interrupt": {
          const session = sessions.get(input.sessionId);
          if (session) {
            session.interrupted = true;
            for (const resolve of session.waiting.values()) resolve({ behavior: "deny", message: "Interrupted" });
            session.waiting.clear();
          }
          emit({ type: "request.completed", requestId: input.requestId });
          return;
        }
        case "session.close":
          sessions.delete(input.sessionId);
          emit({ type: "session.closed", sessionId: input.sessionId });
          emit({ type: "request.completed", requestId: input.requestId });
          return;
        default:
          if ("requestId" in input) {
            emit({ type: "request.failed", requestId: input.requestId, error: { message: `shell-helper does not support ${input.type}` } });
          }
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      sessions.clear();
    },
  };
}

export default function contribute(server: PluginServerContext) {
  server.registerProvider({
    id: "shell-helper",
    label: "Shell helper",
    description: "Runs `$ command` lines (with permission); answers the rest backwards.",
    icon: "icon.svg",
    async connect(request) {
      return connection(request.capabilities);
    },
  });
  return () => {};
}
