// `context.paseo` / `server.paseo`: the SDK a plugin uses to act on the daemon, with the shape of
// Paseo's `PaseoApi` (@getpaseo/client). Every call goes to the daemon's Rust trait through
// op_sdk_call, attributed to this plugin; daemon events reach subscriptions by topic.
import { ops } from "paseo:internal/core";

const DEFAULT_WAIT_FOR_FINISH_MS = 10 * 60_000;
const message = (e) => (e instanceof Error ? e.message : String(e));

export async function sdkCall(method, args = {}) {
  return JSON.parse(await ops.op_sdk_call(method, JSON.stringify(args ?? {})));
}

const notImplemented = (member) => () => Promise.reject(new Error(`paseo.${member} is not implemented by this daemon`));

// topic → listeners. The host delivers daemon events only for topics with listeners.
const topics = new Map();

function subscribeTopic(topic, handler, filter = () => true) {
  if (typeof handler !== "function") throw new TypeError("subscribe() needs a handler function");
  let set = topics.get(topic);
  if (!set) {
    set = new Set();
    topics.set(topic, set);
    ops.op_sdk_subscribe(topic, true);
  }
  const entry = (event) => { if (filter(event)) return handler(event); };
  set.add(entry);
  const unsubscribe = () => {
    if (set.delete(entry) && set.size === 0 && topics.get(topic) === set) {
      topics.delete(topic);
      ops.op_sdk_subscribe(topic, false);
    }
  };
  // Paseo's handle: calling it releases; `ready` settles once events flow (here at once, as
  // the host routes the topic before this returns); `release()` returns a promise.
  return Object.assign(unsubscribe, {
    unsubscribe,
    release: async () => unsubscribe(),
    ready: Promise.resolve(),
    subscriptionId: `${topic}#${++subscriptionCount}`,
  });
}
let subscriptionCount = 0;

/** Hands a daemon event to the listeners of `topic`; a failing listener is logged. */
export async function deliver(topic, payload) {
  for (const listener of [...(topics.get(topic) ?? [])]) {
    try {
      await listener(payload);
    } catch (e) {
      ops.op_host_log(1, `Subscription listener for ${topic} failed: ${message(e)}`);
    }
  }
}

/** Ends every subscription (the plugin is stopping). */
export function closeSubscriptions() {
  for (const topic of topics.keys()) ops.op_sdk_subscribe(topic, false);
  topics.clear();
}

const SNAPSHOT_FIELDS = [
  "workspaceId", "cwd", "status", "capabilities", "availableModes", "pendingPermissions", "activeTurn",
  "lastUsage", "lastError", "features", "runtimeInfo", "archivedAt",
];

function agentHandle(agentOrId) {
  const id = typeof agentOrId === "string" ? agentOrId : agentOrId?.id;
  if (typeof id !== "string" || id === "") throw new TypeError("agents.ref() needs an agent or an agent id");
  let snapshot = typeof agentOrId === "object" ? agentOrId : null;
  const agentId = id;
  const handle = {
    id,
    current: () => snapshot,
    async refresh(requestId) {
      const result = await sdkCall("agents.get", { agentId, requestId });
      if (result?.agent) snapshot = result.agent;
      return result;
    },
    async send(text, options = {}) {
      if (typeof text !== "string") throw new TypeError("send() needs the message text");
      await sdkCall("agents.send", { agentId, text, options });
    },
    async respondToPermission({ requestId, response } = {}) {
      if (typeof requestId !== "string") throw new TypeError("respondToPermission() needs a requestId");
      await sdkCall("agents.respondToPermission", { agentId, requestId, response });
    },
    async run(text, options = {}) {
      const { timeoutMs, ...sendOptions } = options;
      await handle.send(text, sendOptions);
      return handle.waitForFinish(timeoutMs);
    },
    waitForFinish: (timeoutMs = DEFAULT_WAIT_FOR_FINISH_MS) => sdkCall("agents.waitForFinish", { agentId, timeoutMs }),
    commands: (options = {}) => sdkCall("agents.commands", { agentId, options }),
    archive: () => sdkCall("agents.archive", { agentId }),
    async reload({ requestId } = {}) {
      await sdkCall("agents.reload", { agentId, requestId });
    },
    async detach() {},
    subscribe: (handler) => subscribeTopic("agent_update", handler, (e) => (e?.agent?.id ?? e?.agentId) === id),
    timeline: {
      append: (item) => sdkCall("agents.timeline.append", { agentId, item }),
      refetch: (options = {}) => sdkCall("agents.timeline.fetch", { agentId, options }),
      subscribe: (handler) => subscribeTopic(`agent_stream:${id}`, handler),
    },
  };
  for (const field of SNAPSHOT_FIELDS) {
    Object.defineProperty(handle, field, { get: () => snapshot?.[field] ?? null, enumerable: true });
  }
  return handle;
}

function workspaceHandle(workspace) {
  let snapshot = workspace;
  const workspaceId = workspace.id;
  const handle = {
    id: workspaceId,
    current: () => snapshot,
    async refresh() {
      const result = await sdkCall("workspaces.get", { workspaceId });
      if (result) snapshot = result;
      return result;
    },
    setTitle: (title) => sdkCall("workspaces.setTitle", { workspaceId, title }),
    setLabel: (label, assigned) => sdkCall("workspaces.setLabel", { workspaceId, label, assigned }),
    archive: () => sdkCall("workspaces.archive", { workspaceId }),
    subscribe: (handler) => subscribeTopic("workspace_update", handler, (e) => (e?.workspace?.id ?? e?.workspaceId) === workspaceId),
    agents: { create: (options) => agents.create({ ...options, cwd: snapshot.directory ?? snapshot.cwd }) },
    terminals: { create: notImplemented("workspaces.ref(…).terminals.create"), list: notImplemented("workspaces.ref(…).terminals.list") },
  };
  for (const [field, key] of [["projectId", "projectId"], ["directory", "directory"], ["name", "name"], ["status", "status"]]) {
    Object.defineProperty(handle, field, { get: () => snapshot?.[key] ?? (key === "directory" ? snapshot?.cwd ?? null : null), enumerable: true });
  }
  return handle;
}

async function listWith(method, topic, options = {}) {
  if (options.subscriptionId !== undefined) throw new Error("Subscription IDs are assigned by the host");
  const { subscribe, ...rest } = options;
  const result = await sdkCall(method, rest);
  if (subscribe) {
    const listener = typeof subscribe.handler === "function" ? subscribe.handler : () => {};
    const subscription = subscribeTopic(topic, listener);
    result.subscription = Object.assign(subscription, { subscribe: (h) => subscribeTopic(topic, h) });
  }
  return result;
}

const agents = {
  list: (options) => listWith("agents.list", "agent_update", options),
  ref: agentHandle,
  async create(options = {}) {
    const { config = {}, prompt, parent, onEvent, ...rest } = options;
    if (typeof config.provider !== "string" || !config.provider.includes("/")) {
      throw new Error('Expected config.provider in "provider/model" format');
    }
    const { options: providerOptions, ...wireConfig } = config;
    const wire = { ...rest, config: wireConfig };
    if (providerOptions !== undefined) wire.config.providerOptions = providerOptions;
    if (prompt !== undefined) wire.initialPrompt = prompt;
    if (parent !== undefined) wire.callerAgentId = typeof parent === "string" ? parent : parent?.id;
    const handle = agentHandle(await sdkCall("agents.create", wire));
    if (typeof onEvent === "function") handle.timeline.subscribe(onEvent);
    return handle;
  },
  subscribe: (handler) => subscribeTopic("agent_update", handler),
};

const workspaces = {
  list: (options) => listWith("workspaces.list", "workspace_update", options),
  ref: (workspaceOrId) => workspaceHandle(typeof workspaceOrId === "string" ? { id: workspaceOrId } : workspaceOrId),
  async open(arg) {
    const { cwd, requestId } = typeof arg === "string" ? { cwd: arg } : arg ?? {};
    const workspace = await sdkCall("workspaces.open", { cwd, requestId });
    if (!workspace) throw new Error(`The daemon did not open a workspace for ${cwd}`);
    return workspaceHandle(workspace);
  },
  async create(options = {}) {
    const { onEvent, ...rest } = options;
    const workspace = await sdkCall("workspaces.create", rest);
    if (!workspace) throw new Error("The daemon did not create a workspace");
    const handle = workspaceHandle(workspace);
    if (typeof onEvent === "function") handle.subscribe(onEvent);
    return handle;
  },
  archive: (workspaceOrId, requestId) =>
    sdkCall("workspaces.archive", { workspaceId: typeof workspaceOrId === "string" ? workspaceOrId : workspaceOrId?.id, requestId }),
  subscribe: (handler) => subscribeTopic("workspace_update", handler),
  labels: { list: () => sdkCall("workspaces.labels.list") },
};

export function createPaseoApi() {
  return Object.freeze({
    agents: Object.freeze(agents),
    workspaces: Object.freeze(workspaces),
    projects: Object.freeze({ list: (options) => sdkCall("projects.list", options), subscribe: (h) => subscribeTopic("project_update", h) }),
    providers: Object.freeze({
      snapshot: () => sdkCall("providers.snapshot"),
      subscribe: (h) => subscribeTopic("provider_update", h),
      ...Object.fromEntries(
        ["listModels", "listModes", "listFeatures", "listAvailable", "waitForReady", "refresh", "diagnostic", "listUsage"].map((m) => [m, notImplemented(`providers.${m}`)]),
      ),
    }),
    config: Object.freeze({
      get: (requestId) => sdkCall("config.get", { requestId }),
      patch: (patch, requestId) => sdkCall("config.patch", { patch, requestId }),
    }),
    terminals: Object.freeze({ create: notImplemented("terminals.create"), list: notImplemented("terminals.list") }),
    observeEvents: notImplemented("observeEvents"),
    async dispose() {},
  });
}
