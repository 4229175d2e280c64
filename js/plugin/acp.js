// `@getpaseo/plugin/server/acp`: `runAcpProvider(options)` turns an ACP agent (Agent Client
// Protocol: JSON-RPC 2.0, one message a line, over the agent's stdio) into a Paseo agent
// provider (provider protocol v1). A plugin does
//   server.registerProvider(runAcpProvider({ id, label, command: ["my-agent", "--acp"] }))
// Written for this host after Paseo's SDK (`packages/plugin/src/server/acp.ts`), without the
// `@agentclientprotocol/sdk` package: the JSON-RPC peer below is our own.
//
// What it does:
// - options: `{ id, label, description?, icon?, env?, acpOptions?, transformers? }` and exactly
//   one of `command: [exe, ...args]` (spawned with piped stdio) or `connector: () => { readable,
//   writable }` (JSON-RPC message objects, for an agent running in the isolate: `readable` a
//   ReadableStream or async iterable, `writable` a WritableStream or any `{ write(message) }`,
//   as this host has no WritableStream global).
// - connect: protocol v1; capabilities negotiated from prompt.message, prompt.command and
//   permission. Nothing is spawned until a session opens.
// - session.open: one agent process per session (`process.env`, then `options.env`, then the
//   session's `config.env`), `initialize` (protocol version 1, `acpOptions.startupTimeoutMs`,
//   10 s by default), `session/new` with `cwd` and the MCP servers in ACP's shape (http/sse ones
//   only if the agent declares `mcpCapabilities` for them), then the session's mode/model if
//   the agent offers them. Events: session.opened, session.config (when the agent has modes or
//   config options), session.commands, session.ready, request.completed; a failure is
//   request.failed naming the command.
// - session.prompt: timeline user_message, session.prompt_result {type: "turn"}, session.turn
//   started; `session/update` becomes timeline items (agent_message_chunk → assistant_message,
//   agent_thought_chunk → reasoning, one item per run of chunks, its text growing; tool_call /
//   tool_call_update → tool_call with a shell/read/edit/write/search/fetch/plain_text/unknown
//   detail; plan → todo), available_commands_update → session.commands, current_mode_update /
//   config_option_update → session.config, usage_update → session.usage. The `session/prompt`
//   answer gives session.usage (when it has `usage`) and session.turn completed, or canceled
//   for stopReason "cancelled"; a JSON-RPC error fails the turn with the agent's message. A
//   prompt while a turn runs cancels that turn first.
// - session/request_permission → session.permission (the agent's options as actions); the
//   daemon's session.permission picks `selectedActionId`, else the first option of that
//   behaviour (`deny` with `interrupt` also cancels the turn); session.permission_resolved.
// - session.interrupt → pending permissions answered "cancelled", `session/cancel`,
//   request.completed; the agent then ends the turn ("cancelled").
// - The process exiting (or failing to spawn, or the connector's stream ending) →
//   the running turn fails and session.runtime_failed says which command exited how, with
//   the end of its stderr.
// - session.close and close() end the agent: stdin closed, SIGTERM, SIGKILL after 1 s.
// - catalog: a short-lived agent's `session/new` gives the modes and models (then it is ended).
// - transformers: `notification({method, params}, {sessionId})` sees the agent's non-ACP
//   notifications and may return commands/config/timeline/notice updates; `toolCall(snapshot,
//   ctx)` rewrites tool-call snapshots; `discover(catalog, ctx)` rewrites the catalogue.
//
// Left out: `configure` transformers and session.configure, session.persistence /
// `session/load`, session.list, prompt.image, archive/unarchive/revert (none of these
// capabilities is negotiated, so such inputs are refused), the client's fs/* and terminal/*
// methods (not advertised; answered "Method not found"), authentication (`authenticate`),
// `acpOptions.protocol` (only ACP v1 is spoken), and stdout lines that are not JSON (logged and
// skipped). The agent's stderr is kept only for failure messages; processes the agent starts
// itself are not signalled on close. A turn the agent never ends after `session/cancel` stays
// open.
import { spawn } from "node:child_process";
import process from "node:process";
import {
  PROVIDER_PROTOCOL_VERSION,
  negotiateProviderCapabilities,
  requireProviderCapabilities,
} from "paseo:plugin/server/provider";

const ACP_PROTOCOL_VERSION = 1;
const SUPPORTED = ["prompt.message", "prompt.command", "permission"];
const STARTUP_TIMEOUT_MS = 10_000;
const KILL_GRACE_MS = 1_000;
const STDERR_TAIL = 2_000;

const describeError = (e) => (e instanceof Error ? e.message : String(e));
const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v) => (typeof v === "string" && v.length > 0 ? v : undefined);
const nonEmpty = (...values) => values.find((v) => typeof v === "string" && v.length > 0);

export function runAcpProvider(options) {
  const hasCommand = options?.command !== undefined;
  const hasConnector = options?.connector !== undefined;
  if (hasCommand === hasConnector) throw new Error("ACP provider requires exactly one command or SDK connector");
  if (hasCommand) {
    const { command } = options;
    if (!Array.isArray(command) || typeof command[0] !== "string" || command[0].trim().length === 0) {
      throw new Error("ACP provider command must contain an executable");
    }
    if (command.some((part) => typeof part !== "string")) throw new Error("ACP provider command must be an array of strings");
  } else if (typeof options.connector !== "function") {
    throw new Error("ACP provider connector must be a function returning { readable, writable }");
  }
  if (options.transformers !== undefined && !Array.isArray(options.transformers)) {
    throw new Error("ACP provider transformers must be an array");
  }
  const settings = { ...options, command: hasCommand ? [...options.command] : undefined, transformers: [...(options.transformers ?? [])] };
  return {
    id: options.id,
    label: options.label,
    description: options.description,
    icon: options.icon,
    ...(hasCommand ? { command: [...options.command] } : {}),
    connect: (request) => connectAcp(settings, request),
  };
}

// ---------------------------------------------------------------------------------------------
// The provider connection: sessions by Paseo's id, each with its own agent.

async function connectAcp(options, request) {
  if (!request?.versions?.includes(PROVIDER_PROTOCOL_VERSION)) {
    throw new Error(`ACP provider ${options.id} requires provider protocol ${PROVIDER_PROTOCOL_VERSION}`);
  }
  const capabilities = negotiateProviderCapabilities(request.capabilities ?? [], SUPPORTED);
  const listeners = new Set();
  const sessions = new Map();
  const agents = new Set(); // every agent alive, sessions' and catalogues'
  let closed = false;
  let closing = null;

  const emit = (event) => {
    if (closed) return;
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (e) {
        console.error(`ACP provider ${options.id}: an event listener failed: ${describeError(e)}`);
      }
    }
  };
  const fail = (requestId, error) => emit({ type: "request.failed", requestId, error: { message: describeError(error) } });
  const spawnAgent = (env) => {
    const agent = new AcpAgent(options, env);
    agents.add(agent);
    agent.ended.then(() => agents.delete(agent));
    return agent;
  };
  const session = (sessionId) => {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`Unknown session: ${sessionId}`);
    return s;
  };

  async function open(input) {
    const s = new AcpSession(options, input, capabilities, emit, spawnAgent(input.config.env ?? {}));
    sessions.set(input.sessionId, s);
    try {
      await s.open();
    } catch (e) {
      if (sessions.get(input.sessionId) === s) sessions.delete(input.sessionId);
      await s.close();
      fail(input.requestId, e);
    }
  }

  async function catalog(input) {
    const agent = spawnAgent({});
    try {
      await agent.start();
      const created = await agent.request("session/new", { cwd: input.cwd ?? process.cwd(), mcpServers: [] });
      let result = toCatalog(created);
      let configOptions = Array.isArray(created?.configOptions) ? created.configOptions : [];
      const config = {
        read: async () => Object.fromEntries(configOptions.map((o) => [o.id, o.currentValue ?? null])),
        set: async (id, value) => {
          const answer = await agent.request("session/set_config_option", { sessionId: created.sessionId, configId: id, value });
          if (Array.isArray(answer?.configOptions)) configOptions = answer.configOptions;
        },
      };
      for (const transformer of options.transformers) {
        if (typeof transformer.discover === "function") result = await transformer.discover(result, { sessionId: "catalog", config });
      }
      emit({ type: "catalog", requestId: input.requestId, catalog: result });
    } catch (e) {
      fail(input.requestId, e);
    } finally {
      await agent.close();
    }
  }

  return {
    version: PROVIDER_PROTOCOL_VERSION,
    capabilities,
    async send(input) {
      if (closed) throw new Error("ACP provider connection is closed");
      switch (input?.type) {
        case "session.open":
          if (sessions.has(input.sessionId)) throw new Error(`Session already exists: ${input.sessionId}`);
          requireProviderCapabilities(capabilities, input);
          void open(input);
          return;
        case "session.prompt": {
          const s = session(input.sessionId);
          requireProviderCapabilities(s.capabilities, input);
          void s.prompt(input.prompt);
          return;
        }
        case "session.interrupt": {
          const s = session(input.sessionId);
          void s.interrupt().then(() => emit({ type: "request.completed", requestId: input.requestId }), (e) => fail(input.requestId, e));
          return;
        }
        case "session.permission":
          requireProviderCapabilities(session(input.sessionId).capabilities, input);
          session(input.sessionId).respondToPermission(input.permissionId, input.response);
          return;
        case "session.close": {
          const s = session(input.sessionId);
          sessions.delete(input.sessionId);
          void s.close().then(() => {
            emit({ type: "session.closed", sessionId: input.sessionId });
            emit({ type: "request.completed", requestId: input.requestId });
          }, (e) => fail(input.requestId, e));
          return;
        }
        case "catalog":
          void catalog(input);
          return;
        default:
          requireProviderCapabilities(capabilities, input);
          if (typeof input?.requestId === "string") {
            fail(input.requestId, `${input.type} is not supported by this ACP provider`);
            return;
          }
          throw new Error(`${input?.type} is not supported by this ACP provider`);
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (closing) return closing;
      closed = true;
      closing = (async () => {
        const all = [...sessions.values()];
        sessions.clear();
        await Promise.all([...all.map((s) => s.close()), ...[...agents].map((a) => a.close())]);
        listeners.clear();
      })();
      return closing;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One Paseo session over one ACP session.

class AcpSession {
  constructor(options, input, capabilities, emit, agent) {
    this.options = options;
    this.input = input;
    this.id = input.sessionId;
    this.capabilities = capabilities;
    this.emitEvent = emit;
    this.agent = agent;
    this.nativeId = null;
    this.opened = false;
    this.deferred = []; // events the agent caused before session.opened
    this.closing = false;
    this.failure = null;
    this.modes = null;
    this.models = null;
    this.configOptions = [];
    this.commandsSeen = false;
    this.commandWaiter = null;
    this.turn = null;
    this.turns = 0;
    this.lane = Promise.resolve();
    this.chunk = null; // { kind, id, text }: the run of chunks being streamed
    this.chunks = 0;
    this.toolCalls = new Map();
    this.permissions = new Map();
    agent.handlers = {
      notification: (method, params) => this.notification(method, params),
      request: (method, params) => this.request(method, params),
      failed: (message) => this.failed(message),
    };
  }

  emit(event) {
    if (this.closing) return;
    if (!this.opened) this.deferred.push(event);
    else this.emitEvent(event);
  }

  async open() {
    const { config, requestId } = this.input;
    await this.agent.start();
    const paseo = { systemPrompt: config.systemPrompt, providerOptions: config.providerOptions, toolPolicy: config.toolPolicy, persist: config.persist };
    const created = await this.agent.request("session/new", {
      cwd: config.cwd,
      mcpServers: toAcpMcpServers(config.mcpServers ?? {}, this.agent.capabilities, this.options.id),
      _meta: { _paseo: JSON.parse(JSON.stringify(paseo)) },
    });
    if (typeof created?.sessionId !== "string" || !created.sessionId) throw new Error(`ACP agent ${this.agent.name} answered session/new without a sessionId`);
    this.nativeId = created.sessionId;
    this.modes = isRecord(created.modes) ? created.modes : null;
    this.models = isRecord(created.models) ? created.models : null;
    this.configOptions = Array.isArray(created.configOptions) ? created.configOptions : [];
    await this.applyInitialConfig(config);
    if (this.closing) return;
    this.opened = true;
    this.emitEvent({
      type: "session.opened", requestId, sessionId: this.id, capabilities: [...this.capabilities],
      restoration: "core", ...(text(config.title) ? { title: config.title } : {}), cwd: config.cwd,
    });
    if (this.modes || this.models || this.configOptions.length) this.emitConfig();
    for (const event of this.deferred.splice(0)) this.emitEvent(event);
    if (this.options.acpOptions?.waitForInitialCommands && !this.commandsSeen) await this.waitForCommands();
    if (this.closing) return;
    this.emitEvent({ type: "session.ready", requestId, sessionId: this.id });
    this.emitEvent({ type: "request.completed", requestId });
  }

  // The session's mode and model, when the agent offers them (otherwise noted in the log).
  async applyInitialConfig(config) {
    if (config.mode) {
      if (this.modes?.availableModes?.some((m) => m.id === config.mode)) {
        await this.agent.request("session/set_mode", { sessionId: this.nativeId, modeId: config.mode });
        this.modes = { ...this.modes, currentModeId: config.mode };
      } else {
        console.warn(`ACP provider ${this.options.id}: the agent has no mode ${config.mode}`);
      }
    }
    if (config.model) {
      const option = this.configOptions.find((o) => o.category === "model");
      if (option) {
        const answer = await this.agent.request("session/set_config_option", { sessionId: this.nativeId, configId: option.id, value: config.model });
        if (Array.isArray(answer?.configOptions)) this.configOptions = answer.configOptions;
      } else if (this.models) {
        await this.agent.request("session/set_model", { sessionId: this.nativeId, modelId: config.model });
        this.models = { ...this.models, currentModelId: config.model };
      } else {
        console.warn(`ACP provider ${this.options.id}: the agent offers no model choice (${config.model})`);
      }
    }
  }

  waitForCommands() {
    const ms = this.options.acpOptions?.initialCommandsTimeoutMs ?? 1_000;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.commandWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.commandWaiter = null));
  }

  emitConfig() {
    this.emit({ type: "session.config", sessionId: this.id, config: toConfigState(this.modes, this.models, this.configOptions) });
  }

  // --- prompts --------------------------------------------------------------------------------

  prompt(prompt) {
    const started = this.lane.then(() => this.startTurn(prompt));
    this.lane = started.catch(() => undefined);
    return started.catch((e) => {
      this.emit({ type: "session.prompt_result", sessionId: this.id, clientMessageId: prompt.clientMessageId, result: { type: "failed", error: { message: describeError(e) } } });
    });
  }

  async startTurn(prompt) {
    if (this.failure) throw new Error(this.failure);
    if (!this.opened) throw new Error(`Session ${this.id} is not open yet`);
    const active = this.turn;
    if (active) {
      await this.interrupt();
      await active.done;
    }
    if (this.failure) throw new Error(this.failure);
    const blocks = toAcpPrompt(prompt);
    const turn = { id: `acp-turn-${++this.turns}`, finished: false, done: null };
    this.endChunk();
    this.turn = turn;
    this.emit({
      type: "timeline.item", sessionId: this.id,
      item: { type: "user_message", id: prompt.clientMessageId, clientMessageId: prompt.clientMessageId, text: blocks.filter((b) => b.type === "text").map((b) => b.text).join("\n") },
    });
    this.emit({ type: "session.prompt_result", sessionId: this.id, clientMessageId: prompt.clientMessageId, result: { type: "turn", turnId: turn.id } });
    this.emit({ type: "session.turn", sessionId: this.id, turnId: turn.id, state: "started" });
    turn.done = this.agent.request("session/prompt", { sessionId: this.nativeId, prompt: blocks }).then(
      (answer) => {
        const usage = toUsage(answer?.usage);
        if (usage && !turn.finished) this.emit({ type: "session.usage", sessionId: this.id, turnId: turn.id, usage });
        this.finishTurn(turn, answer?.stopReason === "cancelled" ? "canceled" : "completed");
      },
      (e) => this.finishTurn(turn, "failed", describeError(e)),
    );
  }

  finishTurn(turn, state, message) {
    if (turn.finished) return;
    turn.finished = true;
    this.endChunk();
    for (const [id, call] of this.toolCalls) {
      if (call.status !== "pending" && call.status !== "in_progress") continue;
      const settled = { ...call, status: state === "completed" ? "completed" : state === "canceled" ? "canceled" : "failed" };
      this.toolCalls.set(id, settled);
      this.emit({ type: "timeline.item", sessionId: this.id, item: toolCallItem(settled) });
    }
    this.emit({ type: "session.turn", sessionId: this.id, turnId: turn.id, state, ...(message ? { error: { message } } : {}) });
    if (this.turn === turn) this.turn = null;
  }

  async interrupt() {
    this.cancelPermissions(true);
    if (!this.turn || this.failure) return;
    await this.agent.notify("session/cancel", { sessionId: this.nativeId });
  }

  // --- permissions ----------------------------------------------------------------------------

  requestPermission(params) {
    const call = isRecord(params?.toolCall) ? params.toolCall : {};
    const options = Array.isArray(params?.options) ? params.options.filter((o) => isRecord(o) && text(o.optionId)) : [];
    const known = this.toolCalls.get(call.toolCallId);
    const snapshot = mergeToolCall(known, call);
    let id = `permission:${call.toolCallId ?? "tool"}`;
    for (let n = 2; this.permissions.has(id); n++) id = `permission:${call.toolCallId ?? "tool"}:${n}`;
    return new Promise((resolve) => {
      this.permissions.set(id, { options, resolve });
      const input = isRecord(snapshot.rawInput) ? snapshot.rawInput : undefined;
      this.emit({
        type: "session.permission", sessionId: this.id,
        request: {
          id, name: snapshot.title, kind: snapshot.kind === "switch_mode" ? "mode" : "tool", title: snapshot.title,
          ...(input ? { input } : {}),
          detail: toolCallDetail(snapshot),
          actions: options.map((o) => ({ id: o.optionId, label: nonEmpty(o.name, o.optionId), behavior: behaviourOf(o) })),
        },
      });
    });
  }

  respondToPermission(permissionId, response) {
    const pending = this.permissions.get(permissionId);
    if (!pending) throw new Error(`Unknown ACP permission: ${permissionId}`);
    let option;
    if (response.selectedActionId !== undefined) {
      option = pending.options.find((o) => o.optionId === response.selectedActionId && behaviourOf(o) === response.behavior);
      if (!option) throw new Error(`ACP permission action '${response.selectedActionId}' does not exist or does not match '${response.behavior}' behavior`);
    } else {
      const matching = pending.options.filter((o) => behaviourOf(o) === response.behavior);
      option = matching.find((o) => String(o.kind).endsWith("_once")) ?? matching[0];
    }
    this.permissions.delete(permissionId);
    pending.resolve({ outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } });
    this.emit({ type: "session.permission_resolved", sessionId: this.id, permissionId });
    if (response.behavior === "deny" && response.interrupt) void this.interrupt().catch(() => undefined);
  }

  cancelPermissions(announce) {
    for (const [id, pending] of this.permissions) {
      pending.resolve({ outcome: { outcome: "cancelled" } });
      if (announce) this.emit({ type: "session.permission_resolved", sessionId: this.id, permissionId: id });
    }
    this.permissions.clear();
  }

  // --- what the agent sends -------------------------------------------------------------------

  request(method, params) {
    if (method === "session/request_permission") return this.requestPermission(params);
    return undefined; // answered "Method not found"
  }

  notification(method, params) {
    if (method === "session/update") {
      if (isRecord(params) && isRecord(params.update) && (this.nativeId === null || params.sessionId === this.nativeId)) this.update(params.update);
      return;
    }
    const notification = { method, params: params === undefined ? null : params };
    for (const transformer of this.options.transformers) {
      if (typeof transformer.notification !== "function") continue;
      let updates;
      try {
        updates = transformer.notification(notification, { sessionId: this.id });
      } catch (e) {
        console.error(`ACP provider ${this.options.id}: transformer failed on ${method}: ${describeError(e)}`);
        continue;
      }
      for (const update of updates == null ? [] : Array.isArray(updates) ? updates : [updates]) this.vendorUpdate(update);
    }
  }

  vendorUpdate(update) {
    if (update?.type === "commands") this.emit({ type: "session.commands", sessionId: this.id, commands: toCommands(update.commands) });
    else if (update?.type === "config") this.emit({ type: "session.config", sessionId: this.id, config: update.config });
    else if (update?.type === "timeline") this.emit({ type: "timeline.item", sessionId: this.id, item: update.item });
    else if (update?.type === "notice") this.emit({ type: "session.notice", sessionId: this.id, notice: update.notice });
  }

  update(update) {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        if (update.content?.type !== "text" || typeof update.content.text !== "string") return;
        const kind = update.sessionUpdate === "agent_message_chunk" ? "assistant_message" : "reasoning";
        const messageId = text(update.messageId);
        if (!this.chunk || this.chunk.kind !== kind || (messageId && this.chunk.id !== messageId)) {
          this.chunk = { kind, id: messageId ?? `${kind}-${++this.chunks}`, text: "", messageId };
        }
        this.chunk.text += update.content.text;
        const { id, messageId: mid } = this.chunk;
        this.emit({ type: "timeline.item", sessionId: this.id, item: { type: kind, id, text: this.chunk.text, ...(kind === "assistant_message" && mid ? { messageId: mid } : {}) } });
        return;
      }
      case "user_message_chunk":
        this.endChunk();
        return;
      case "tool_call":
      case "tool_call_update": {
        if (!text(update.toolCallId)) return;
        this.endChunk();
        // A `tool_call` starts the call afresh; an update adds to what is known.
        const known = update.sessionUpdate === "tool_call" ? undefined : this.toolCalls.get(update.toolCallId);
        let snapshot = mergeToolCall(known, update);
        snapshot = this.transformToolCall(snapshot);
        this.toolCalls.set(update.toolCallId, snapshot);
        this.emit({ type: "timeline.item", sessionId: this.id, item: toolCallItem(snapshot) });
        return;
      }
      case "plan": {
        this.endChunk();
        const entries = Array.isArray(update.entries) ? update.entries : [];
        this.emit({
          type: "timeline.item", sessionId: this.id,
          item: {
            type: "todo", id: `plan-${this.turns}`,
            items: entries.map((e, i) => {
              const status = ["pending", "in_progress", "completed"].includes(e?.status) ? e.status : undefined;
              return { id: String(i), text: String(e?.content ?? ""), completed: status === "completed", ...(status ? { status } : {}) };
            }),
          },
        });
        return;
      }
      case "available_commands_update":
        this.commandsSeen = true;
        this.emit({ type: "session.commands", sessionId: this.id, commands: toCommands(update.availableCommands) });
        this.commandWaiter?.();
        return;
      case "current_mode_update":
        if (this.modes && text(update.currentModeId)) this.modes = { ...this.modes, currentModeId: update.currentModeId };
        this.emitConfig();
        return;
      case "config_option_update":
        if (Array.isArray(update.configOptions)) this.configOptions = update.configOptions;
        this.emitConfig();
        return;
      case "usage_update": {
        const usage = {};
        if (typeof update.used === "number") usage.contextWindowUsedTokens = update.used;
        if (typeof update.size === "number") usage.contextWindowMaxTokens = update.size;
        if (update.cost?.currency === "USD" && typeof update.cost.amount === "number") usage.totalCostUsd = update.cost.amount;
        this.emit({ type: "session.usage", sessionId: this.id, ...(this.turn ? { turnId: this.turn.id } : {}), usage });
        return;
      }
      default:
    }
  }

  transformToolCall(snapshot) {
    let view = {
      id: snapshot.toolCallId, ...(snapshot.name ? { name: snapshot.name } : {}), title: snapshot.title,
      ...(snapshot.kind ? { kind: snapshot.kind } : {}), status: snapshot.status,
      input: snapshot.rawInput ?? null, output: snapshot.rawOutput ?? null, locations: snapshot.locations.map((l) => l.path),
    };
    let changed = false;
    for (const transformer of this.options.transformers) {
      if (typeof transformer.toolCall !== "function") continue;
      view = transformer.toolCall(view, { sessionId: this.id }) ?? view;
      changed = true;
    }
    if (!changed) return snapshot;
    return {
      ...snapshot, name: view.name, title: nonEmpty(view.title, snapshot.title), kind: view.kind, status: view.status,
      rawInput: view.input, rawOutput: view.output,
      locations: Array.isArray(view.locations) ? view.locations.map((path) => ({ path: String(path) })) : snapshot.locations,
    };
  }

  endChunk() {
    this.chunk = null;
  }

  // The agent is gone (exited, failed to spawn, or its stream ended) while the session was open.
  failed(message) {
    if (this.closing || this.failure) return;
    this.failure = message;
    this.cancelPermissions(this.opened);
    if (!this.opened) return; // open() fails with the same message
    if (this.turn) this.finishTurn(this.turn, "failed", message);
    this.emit({ type: "session.runtime_failed", sessionId: this.id, error: { message } });
  }

  async close() {
    if (this.closing) return this.agent.close();
    this.closing = true;
    this.cancelPermissions(false);
    this.commandWaiter?.();
    await this.agent.close();
  }
}

// ---------------------------------------------------------------------------------------------
// One agent: a child process (or a connector's streams) speaking JSON-RPC 2.0.

class AcpAgent {
  constructor(options, env) {
    this.options = options;
    this.env = env;
    this.name = options.command ? `\`${options.command.map(quote).join(" ")}\`` : `${options.id} (SDK connector)`;
    this.handlers = { notification() {}, request() {}, failed() {} };
    this.capabilities = {};
    this.pending = new Map();
    this.nextId = 0;
    this.failure = null;
    this.closing = false;
    this.closed = null;
    this.transport = null;
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  async start() {
    this.transport = this.options.command ? processTransport(this) : await connectorTransport(this);
    const ms = this.options.acpOptions?.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
    const answer = await withTimeout(
      this.request("initialize", {
        protocolVersion: ACP_PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "paseo", version: "1" },
      }),
      ms,
      `ACP agent ${this.name} did not answer initialize within ${ms} ms`,
    );
    if (answer?.protocolVersion !== ACP_PROTOCOL_VERSION) {
      throw new Error(`ACP agent ${this.name} speaks ACP protocol version ${JSON.stringify(answer?.protocolVersion)}; this provider speaks ${ACP_PROTOCOL_VERSION}`);
    }
    this.capabilities = isRecord(answer.agentCapabilities) ? answer.agentCapabilities : {};
  }

  request(method, params) {
    if (this.failure) return Promise.reject(new Error(this.failure));
    if (this.closing) return Promise.reject(new Error(`ACP agent ${this.name} is closed`));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.write({ jsonrpc: "2.0", id, method, params }).catch((e) => {
        if (!this.pending.delete(id)) return;
        reject(new Error(this.failure ?? `ACP agent ${this.name}: could not send ${method}: ${describeError(e)}`));
      });
    });
  }

  async notify(method, params) {
    if (this.failure || this.closing) return;
    await this.write({ jsonrpc: "2.0", method, params });
  }

  write(message) {
    return this.transport.write(message);
  }

  receive(message) {
    if (!isRecord(message) || message.jsonrpc !== "2.0") {
      console.error(`ACP provider ${this.options.id}: skipped a message that is not JSON-RPC 2.0 from ${this.name}`);
      return;
    }
    if (typeof message.method === "string") {
      if (message.id === undefined) {
        try {
          this.handlers.notification(message.method, message.params);
        } catch (e) {
          console.error(`ACP provider ${this.options.id}: ${message.method} failed: ${describeError(e)}`);
        }
        return;
      }
      this.answer(message.id, message.method, message.params);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (isRecord(message.error)) {
      const code = typeof message.error.code === "number" ? ` (code ${message.error.code})` : "";
      const data = typeof message.error.data === "string" ? `: ${message.error.data}` : "";
      pending.reject(Object.assign(new Error(`ACP agent ${this.name} failed ${pending.method}: ${message.error.message ?? "error"}${data}${code}`), { code: message.error.code }));
    } else {
      pending.resolve(message.result);
    }
  }

  async answer(id, method, params) {
    let reply;
    try {
      const result = this.handlers.request(method, params);
      reply = result === undefined
        ? { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } }
        : { jsonrpc: "2.0", id, result: await result };
    } catch (e) {
      reply = { jsonrpc: "2.0", id, error: { code: -32603, message: describeError(e) } };
    }
    if (!this.failure && !this.closing) await this.write(reply).catch(() => undefined);
  }

  // The transport ended on its own: every waiting request fails with `message`.
  fail(message) {
    if (this.failure) return;
    this.failure = message;
    this.markEnded();
    const pending = [...this.pending.values()];
    this.pending.clear();
    if (!this.closing) this.handlers.failed(message);
    for (const p of pending) p.reject(new Error(message));
  }

  close() {
    if (this.closed) return this.closed;
    this.closing = true;
    this.closed = (async () => {
      const pending = [...this.pending.values()];
      this.pending.clear();
      for (const p of pending) p.reject(new Error(`ACP agent ${this.name} was closed`));
      try {
        await this.transport?.close();
      } finally {
        this.markEnded();
      }
    })();
    return this.closed;
  }
}

function quote(part) {
  return /^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`;
}

function processTransport(agent) {
  const [exe, ...args] = agent.options.command;
  const child = spawn(exe, args, { env: { ...process.env, ...(agent.options.env ?? {}), ...agent.env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  let buffered = "";
  let exited = null;
  let failed = false;
  const exit = new Promise((resolve) => child.once("exit", resolve));
  const failWith = (why) => {
    if (failed) return;
    failed = true;
    const tail = stderr.trim().split("\n").slice(-5).join("\n").trim();
    agent.fail(`ACP agent ${agent.name} ${why}${tail ? `: ${tail}` : ""}`);
  };
  child.on("error", (e) => {
    if (child.pid === undefined) failWith(`could not start: ${describeError(e)}`);
  });
  child.stdin.on("error", () => undefined);
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    const lines = (buffered + chunk).split("\n");
    buffered = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        console.error(`ACP provider ${agent.options.id}: skipped a line from ${agent.name} that is not JSON: ${line.slice(0, 200)}`);
        continue;
      }
      agent.receive(message);
    }
  });
  child.once("exit", (code, signal) => {
    exited = { code, signal };
    // What the agent wrote before exiting is read first (stdout and stderr close after it).
    const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      failWith(why);
    };
    child.once("close", done);
    setTimeout(done, 200);
  });
  return {
    write(message) {
      if (exited || failed) return Promise.reject(new Error(agent.failure ?? `ACP agent ${agent.name} has exited`));
      return new Promise((resolve, reject) => child.stdin.write(`${JSON.stringify(message)}\n`, (e) => (e ? reject(e) : resolve())));
    },
    async close() {
      if (exited || child.pid === undefined) return;
      child.stdin.end();
      child.kill("SIGTERM");
      if (await settlesWithin(exit, KILL_GRACE_MS)) return;
      child.kill("SIGKILL");
      if (!(await settlesWithin(exit, KILL_GRACE_MS))) throw new Error(`ACP agent ${agent.name} did not end after SIGKILL`);
    },
  };
}

// A connector's streams: `readable` a ReadableStream (or any async iterable) of messages,
// `writable` a WritableStream or a sink with `write(message)` (this host has no WritableStream).
async function connectorTransport(agent) {
  let stream;
  try {
    stream = await agent.options.connector();
  } catch (e) {
    throw new Error(`ACP provider ${agent.options.id} connector failed: ${describeError(e)}`);
  }
  const { readable, writable } = stream ?? {};
  const reader = typeof readable?.getReader === "function" ? readable.getReader() : null;
  const iterator = reader ? null : readable?.[Symbol.asyncIterator]?.();
  const writer = typeof writable?.getWriter === "function" ? writable.getWriter() : typeof writable?.write === "function" ? writable : null;
  if ((!reader && !iterator) || !writer) {
    throw new Error(`ACP provider ${agent.options.id} connector must return { readable, writable }: a ReadableStream (or async iterable) and a WritableStream (or an object with write(message))`);
  }
  let closing = false;
  (async () => {
    try {
      for (;;) {
        const { done, value } = reader ? await reader.read() : await iterator.next();
        if (done) break;
        agent.receive(typeof value === "string" ? JSON.parse(value) : value);
      }
      if (!closing) agent.fail(`ACP agent ${agent.name} closed its stream`);
    } catch (e) {
      if (!closing) agent.fail(`ACP agent ${agent.name} stream failed: ${describeError(e)}`);
    }
  })();
  return {
    write: async (message) => writer.write(message),
    async close() {
      closing = true;
      const why = new Error("Paseo closed the ACP connector");
      await Promise.allSettled([
        Promise.resolve().then(() => (reader ? reader.cancel(why) : iterator.return?.())),
        Promise.resolve().then(() => writer.close?.()),
      ]);
    },
  };
}

function settlesWithin(promise, ms) {
  let timer;
  return Promise.race([
    promise.then(() => true),
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Shapes: Paseo's to ACP's and back.

const pairs = (record) => Object.entries(record ?? {}).map(([name, value]) => ({ name, value: String(value) }));

function toAcpMcpServers(servers, capabilities, providerId) {
  const out = [];
  for (const [name, server] of Object.entries(servers)) {
    if (server.type === "stdio") {
      out.push({ name, command: server.command, args: [...(server.args ?? [])], env: pairs(server.env) });
    } else if (capabilities?.mcpCapabilities?.[server.type] === true) {
      out.push({ type: server.type, name, url: server.url, headers: pairs(server.headers) });
    } else {
      console.warn(`ACP provider ${providerId}: the agent does not take ${server.type} MCP servers; ${name} is left out`);
    }
  }
  return out;
}

function toAcpPrompt(prompt) {
  if (prompt.input.type === "command") {
    const args = prompt.input.arguments ? ` ${prompt.input.arguments}` : "";
    return [{ type: "text", text: `/${prompt.input.name}${args}` }];
  }
  return prompt.input.content.map((part) => {
    switch (part.type) {
      case "text":
        return part.mimeType && part.title ? { type: "text", text: `${part.title}\n\n${part.text}` } : { type: "text", text: part.text };
      case "image":
        return { type: "image", data: part.data, mimeType: part.mimeType };
      case "uploaded_file":
        return { type: "resource_link", uri: `file://${part.path}`, name: part.fileName, mimeType: part.mimeType, size: part.size };
      case "forge_change_request":
      case "forge_issue":
      case "github_pr":
      case "github_issue":
        return { type: "text", text: [`${part.title} (#${part.number})`, part.url, part.body].filter(Boolean).join("\n") };
      default:
        return { type: "text", text: JSON.stringify(part) };
    }
  });
}

function toUsage(usage) {
  if (!isRecord(usage)) return null;
  const out = {};
  const number = (key, from) => {
    if (typeof usage[from] === "number") out[key] = usage[from];
  };
  number("inputTokens", "inputTokens");
  number("outputTokens", "outputTokens");
  number("cachedInputTokens", "cachedReadTokens");
  return Object.keys(out).length ? out : null;
}

function toCommands(commands) {
  if (!Array.isArray(commands)) return [];
  return commands
    .filter((c) => isRecord(c) && text(c.name))
    .map((c) => ({ name: c.name, description: typeof c.description === "string" ? c.description : "", ...(text(c.input?.hint) ? { argumentHint: c.input.hint } : {}) }));
}

function selectChoices(option) {
  if (!option || !Array.isArray(option.options)) return [];
  return option.options.flatMap((o) => (Array.isArray(o?.options) ? o.options : [o]))
    .filter((o) => text(o?.value))
    .map((o) => ({ value: o.value, label: nonEmpty(o.name, o.value), ...(text(o.description) ? { description: o.description } : {}) }));
}

function toConfigState(modes, models, configOptions) {
  const model = configOptions.find((o) => o.category === "model");
  const thinking = configOptions.find((o) => o.category === "thought_level");
  const modelList = model
    ? selectChoices(model).map((c) => ({ id: c.value, label: c.label, ...(c.description ? { description: c.description } : {}) }))
    : (models?.availableModels ?? []).filter((m) => text(m?.modelId)).map((m) => ({ id: m.modelId, label: nonEmpty(m.name, m.modelId), ...(text(m.description) ? { description: m.description } : {}) }));
  const currentModel = model ? text(model.currentValue) : text(models?.currentModelId);
  return {
    ...(currentModel ? { model: currentModel } : {}),
    ...(text(modes?.currentModeId) ? { mode: modes.currentModeId } : {}),
    ...(thinking && text(thinking.currentValue) ? { thinkingOption: thinking.currentValue } : {}),
    models: modelList,
    modes: (modes?.availableModes ?? []).filter((m) => text(m?.id)).map((m) => ({ id: m.id, label: nonEmpty(m.name, m.id), ...(text(m.description) ? { description: m.description } : {}) })),
    thinkingOptions: selectChoices(thinking).map((c) => ({ id: c.value, label: c.label })),
    settings: configOptions.filter((o) => o !== model && o !== thinking && text(o?.id)).map((o) =>
      o.type === "boolean"
        ? { type: "toggle", id: o.id, label: nonEmpty(o.name, o.id), value: o.currentValue === true }
        : { type: "select", id: o.id, label: nonEmpty(o.name, o.id), value: typeof o.currentValue === "string" ? o.currentValue : null, options: selectChoices(o).map((c) => ({ label: c.label, value: c.value })) }),
  };
}

function toCatalog(created) {
  const state = toConfigState(isRecord(created?.modes) ? created.modes : null, isRecord(created?.models) ? created.models : null, Array.isArray(created?.configOptions) ? created.configOptions : []);
  return {
    models: state.models,
    modes: state.modes,
    thinkingOptions: state.thinkingOptions,
    ...(state.model ? { defaultModel: state.model } : {}),
    ...(state.mode ? { defaultMode: state.mode } : {}),
    ...(state.thinkingOption ? { defaultThinkingOption: state.thinkingOption } : {}),
  };
}

const behaviourOf = (option) => (String(option.kind ?? "").startsWith("allow") ? "allow" : "deny");

// A tool call as ACP describes it, the update's fields over what was known.
function mergeToolCall(current, update) {
  const pick = (key, fallback) => (update[key] !== undefined && update[key] !== null ? update[key] : current?.[key] ?? fallback);
  return {
    toolCallId: update.toolCallId ?? current?.toolCallId ?? "tool",
    name: text(update.name) ?? current?.name,
    title: nonEmpty(update.title, current?.title, update.kind) ?? "Tool call",
    kind: text(update.kind) ?? current?.kind,
    status: pick("status", "pending"),
    rawInput: pick("rawInput", undefined),
    rawOutput: pick("rawOutput", undefined),
    content: Array.isArray(update.content) ? update.content : current?.content ?? [],
    locations: Array.isArray(update.locations) ? update.locations.filter((l) => text(l?.path)) : current?.locations ?? [],
  };
}

function contentText(snapshot) {
  return snapshot.content
    .filter((c) => c?.type === "content" && c.content?.type === "text" && typeof c.content.text === "string")
    .map((c) => c.content.text)
    .join("\n");
}

function inputText(input, ...keys) {
  if (!isRecord(input)) return undefined;
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string" && value) return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string") && value.length) return value.join(" ");
  }
  return undefined;
}

// How Paseo shows a tool call, by ACP's `kind`; what does not fit is `unknown`.
// The first of `keys` that `input` holds as a string (an empty one too).
function inputString(input, ...keys) {
  if (!isRecord(input)) return undefined;
  for (const key of keys) if (typeof input[key] === "string") return input[key];
  return undefined;
}

function toolCallDetail(snapshot) {
  const input = snapshot.rawInput;
  const output = snapshot.rawOutput;
  const body = contentText(snapshot);
  const diff = snapshot.content.find((c) => c?.type === "diff" && text(c.path));
  const filePath = diff?.path ?? snapshot.locations[0]?.path ?? inputText(input, "path", "file_path", "filePath");
  const unknown = { type: "unknown", input: input ?? null, output: output ?? (body || null) };
  switch (snapshot.kind) {
    case "execute": {
      const command = inputText(input, "command", "cmd") ?? snapshot.title;
      const out = body || inputText(output, "output", "stdout");
      const exitCode = isRecord(output) ? [output.exitCode, output.exit_code].find((v) => typeof v === "number") : undefined;
      return { type: "shell", command, ...(out ? { output: out } : {}), ...(exitCode !== undefined ? { exitCode } : {}) };
    }
    case "read":
      return filePath ? { type: "read", filePath, ...(body ? { content: body } : {}) } : unknown;
    case "edit":
    case "delete":
    case "move":
      if (diff && (diff.oldText === undefined || diff.oldText === null) && snapshot.kind === "edit") {
        return { type: "write", filePath, ...(typeof diff.newText === "string" ? { content: diff.newText } : {}) };
      }
      if (!filePath) return unknown;
      {
        // The old and new text from the diff, else from the input (a `toolCall` transformer
        // may describe the edit there, as `{ filePath, oldString, newString }`).
        const oldString = typeof diff?.oldText === "string" ? diff.oldText : inputString(input, "oldString", "old_string");
        const newString = typeof diff?.newText === "string" ? diff.newText : inputString(input, "newString", "new_string");
        return {
          type: "edit", filePath,
          ...(oldString !== undefined ? { oldString } : {}),
          ...(newString !== undefined ? { newString } : {}),
        };
      }
    case "search": {
      const paths = snapshot.locations.map((l) => l.path);
      return { type: "search", query: inputText(input, "query", "pattern") ?? snapshot.title, ...(body ? { content: body } : {}), ...(paths.length ? { filePaths: paths } : {}) };
    }
    case "fetch": {
      const url = inputText(input, "url");
      return url ? { type: "fetch", url, ...(body ? { result: body } : {}) } : unknown;
    }
    case "think":
      return { type: "plain_text", label: snapshot.title, ...(body ? { text: body } : {}), icon: "brain" };
    default:
      return unknown;
  }
}

function toolCallItem(snapshot) {
  const status = snapshot.status === "pending" || snapshot.status === "in_progress" ? "running" : ["completed", "failed", "canceled"].includes(snapshot.status) ? snapshot.status : "running";
  const item = {
    type: "tool_call", id: snapshot.toolCallId, callId: snapshot.toolCallId, name: snapshot.name ?? snapshot.title,
    detail: toolCallDetail(snapshot), status,
    ...(snapshot.kind ? { metadata: { acpKind: snapshot.kind } } : {}),
  };
  if (status === "failed") return { ...item, error: snapshot.rawOutput ?? (contentText(snapshot) || "Tool call failed") };
  return { ...item, error: null };
}
