// What plugins provide: an agent provider (provider protocol v1), a usage source and a forge,
// written the way a provider plugin would against Paseo's SDK. Each `@ts-expect-error` line
// must fail. Never run, only checked.
import {
  PROVIDER_CAPABILITIES,
  PROVIDER_PROTOCOL_VERSION,
  ProviderAvailabilitySchema,
  isProviderCapability,
  negotiateProviderCapabilities,
  requireProviderCapabilities,
  requiredProviderCapabilities,
  type ProviderCapability,
  type ProviderCatalog,
  type ProviderConfigState,
  type ProviderConnection,
  type ProviderConnectRequest,
  type ProviderContent,
  type ProviderEvent,
  type ProviderInput,
  type ProviderPermissionRequest,
  type ProviderPermissionResponse,
  type ProviderRegistration,
  type ProviderSessionConfig,
  type ProviderTimelineItem,
} from "@getpaseo/plugin/server/provider";
import {
  PLUGIN_FORGE_SERVICE_METHODS,
  computeChecksStatus,
  createUnavailableSearchResult,
  defineForgeServerProvider,
  normalizeForgeSearchKinds,
  type CurrentPullRequestStatus,
  type PluginForgeServerService,
  type PluginForgeServiceMethod,
  type PluginServerContext,
  type PullRequestCheck,
  type PullRequestSummary,
  // The provider types are re-exported here too.
  type ProviderEvent as ServerProviderEvent,
  type UsageSourceRegistration,
} from "@getpaseo/plugin/server";
import { hashAccountKey, windowFromUsedPct, type UsageScope } from "@getpaseo/plugin/server/usage";
import { z } from "zod";

// ---------------------------------------------------------------------------------------------
// An agent provider wrapping a (pretend) CLI agent.

const SUPPORTED: readonly ProviderCapability[] = [
  "prompt.message",
  "prompt.image",
  "prompt.command",
  "permission",
  "session.configure",
  "session.persistence",
  "timeline.plugin",
];

const catalog: ProviderCatalog = {
  models: [
    {
      id: "fast",
      label: "Fast",
      isDefault: true,
      contextWindowMaxTokens: 200_000,
      thinkingOptions: [{ id: "low", label: "Low" }, { id: "high", label: "High", isDefault: true }],
      defaultThinkingOptionId: "high",
    },
    { id: "deep", label: "Deep", aliases: ["smart"], metadata: { tier: "pro", limits: [1, 2, null] } },
  ],
  modes: [
    { id: "ask", label: "Ask first" },
    { id: "yolo", label: "Unattended", isUnattended: true },
  ],
  defaultModel: "fast",
};

interface Session {
  config: ProviderSessionConfig;
  turn: number;
  pending: Map<string, (response: ProviderPermissionResponse) => void>;
}

function textOf(content: readonly ProviderContent[]): string {
  return content
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "image":
          return `[image ${part.mimeType}, ${part.data.length} bytes]`;
        case "forge_change_request":
        case "github_pr":
          return `[PR #${part.number} ${part.title} ${part.headRefName ?? ""}]`;
        case "forge_issue":
        case "github_issue":
          return `[issue #${part.number}] ${part.body ?? ""}`;
        case "review":
          return part.comments.map((c) => `${c.filePath}:${c.lineNumber} ${c.body} (${c.context.targetLine.type})`).join("\n");
        case "uploaded_file":
          return `[${part.fileName}, ${part.size} bytes at ${part.path}]`;
      }
    })
    .join("\n");
}

function cliConnection(request: ProviderConnectRequest): ProviderConnection {
  const listeners = new Set<(event: ProviderEvent) => void>();
  const emit = (event: ProviderEvent): void => listeners.forEach((listener) => listener(event));
  const sessions = new Map<string, Session>();
  const capabilities = negotiateProviderCapabilities(request.capabilities, SUPPORTED);

  const configState = (session: Session): ProviderConfigState => ({
    model: session.config.model,
    mode: session.config.mode,
    models: catalog.models,
    modes: catalog.modes,
    thinkingOptions: catalog.models[0]?.thinkingOptions ?? [],
    settings: [
      { type: "toggle", id: "web", label: "Web search", value: session.config.settings["web"] === true },
      { type: "select", id: "effort", label: "Effort", value: null, options: [{ label: "Low", value: "low" }] },
    ],
  });

  async function runTurn(sessionId: string, session: Session, text: string, clientMessageId: string) {
    const turnId = `${sessionId}-turn-${++session.turn}`;
    emit({ type: "session.prompt_result", sessionId, clientMessageId, result: { type: "turn", turnId } });
    emit({ type: "session.turn", sessionId, turnId, state: "started" });
    emit({ type: "timeline.item", sessionId, item: { id: `${turnId}-u`, type: "user_message", text, clientMessageId } });
    emit({ type: "timeline.item", sessionId, item: { id: `${turnId}-r`, type: "reasoning", text: "Thinking about it." } });

    const permission: ProviderPermissionRequest = {
      id: `${turnId}-perm`,
      name: "shell",
      kind: "tool",
      title: "Run the tests",
      input: { command: "npm test", timeoutMs: 60_000 },
      detail: { type: "shell", command: "npm test", cwd: session.config.cwd },
      actions: [
        { id: "once", label: "Allow once", behavior: "allow", variant: "primary" },
        { id: "never", label: "Deny", behavior: "deny", variant: "danger" },
      ],
    };
    const answer = new Promise<ProviderPermissionResponse>((resolve) => session.pending.set(permission.id, resolve));
    emit({ type: "session.permission", sessionId, request: permission });
    const response = await answer;

    const call: ProviderTimelineItem =
      response.behavior === "allow"
        ? {
            id: `${turnId}-t`,
            type: "tool_call",
            callId: "call-1",
            name: "shell",
            status: "completed",
            error: null,
            detail: { type: "shell", command: "npm test", output: "ok", exitCode: 0 },
            revertToken: { checkpoint: session.turn },
          }
        : {
            id: `${turnId}-t`,
            type: "tool_call",
            callId: "call-1",
            name: "shell",
            status: "failed",
            error: { message: response.message ?? "denied" },
            detail: { type: "plain_text", label: "Denied", icon: "wrench" },
          };
    emit({ type: "timeline.item", sessionId, item: call, timestamp: new Date().toISOString() });
    emit({
      type: "timeline.item",
      sessionId,
      item: { id: `${turnId}-todo`, type: "todo", items: [{ text: "Run tests", completed: true, status: "completed" }] },
    });
    emit({
      type: "timeline.item",
      sessionId,
      item: { id: `${turnId}-p`, type: "plugin", pluginId: "cli-agent", kind: "summary", version: 1, data: { files: ["a.ts"] } },
    });
    emit({ type: "timeline.item", sessionId, item: { id: `${turnId}-a`, type: "assistant_message", text: "Done." } });
    emit({
      type: "session.usage",
      sessionId,
      turnId,
      usage: { inputTokens: 1200, outputTokens: 300, totalCostUsd: 0.01, contextWindowUsedTokens: 1500 },
    });
    emit({ type: "session.persistence", sessionId, persistence: { version: 1, data: { thread: sessionId, turn: session.turn } } });
    emit({ type: "session.turn", sessionId, turnId, state: "completed" });
  }

  return {
    version: PROVIDER_PROTOCOL_VERSION,
    capabilities,
    async send(input: ProviderInput): Promise<void> {
      requireProviderCapabilities(capabilities, input);
      switch (input.type) {
        case "catalog":
          emit({ type: "catalog", requestId: input.requestId, catalog });
          return;
        case "session.open": {
          const session: Session = { config: input.config, turn: 0, pending: new Map() };
          sessions.set(input.sessionId, session);
          const servers = Object.entries(input.config.mcpServers).map(([name, server]) =>
            server.type === "stdio" ? `${name}: ${server.command} ${(server.args ?? []).join(" ")}` : `${name}: ${server.url}`,
          );
          void servers;
          emit({
            type: "session.opened",
            requestId: input.requestId,
            sessionId: input.sessionId,
            capabilities,
            restoration: input.persistence ? "core" : "parent",
            persistence: input.persistence ?? { version: 1, data: null },
            cwd: input.config.cwd,
            title: input.config.title,
          });
          emit({ type: "session.config", sessionId: input.sessionId, config: configState(session) });
          emit({ type: "session.commands", sessionId: input.sessionId, commands: [{ name: "review", description: "Review", argumentHint: "<ref>" }] });
          emit({ type: "session.notice", sessionId: input.sessionId, notice: { id: "beta", severity: "info", title: "Beta" } });
          emit({ type: "session.ready", requestId: input.requestId, sessionId: input.sessionId });
          return;
        }
        case "session.prompt": {
          const session = sessions.get(input.sessionId);
          if (!session) throw new Error(`Unknown session ${input.sessionId}`);
          const { prompt } = input;
          const text = prompt.input.type === "message" ? textOf(prompt.input.content) : `/${prompt.input.name} ${prompt.input.arguments}`;
          if (prompt.delivery === "steer") {
            emit({ type: "session.prompt_result", sessionId: input.sessionId, clientMessageId: prompt.clientMessageId, result: { type: "failed", error: { message: "no steering", code: "unsupported" } } });
            return;
          }
          void runTurn(input.sessionId, session, text, prompt.clientMessageId);
          return;
        }
        case "session.permission": {
          const session = sessions.get(input.sessionId);
          session?.pending.get(input.permissionId)?.(input.response);
          session?.pending.delete(input.permissionId);
          emit({ type: "session.permission_resolved", sessionId: input.sessionId, permissionId: input.permissionId });
          return;
        }
        case "session.configure": {
          const session = sessions.get(input.sessionId);
          if (session) {
            const { model, mode, settings } = input.changes;
            session.config = {
              ...session.config,
              ...(model !== undefined ? { model: model ?? undefined } : {}),
              ...(mode !== undefined ? { mode: mode ?? undefined } : {}),
              settings: { ...session.config.settings, ...settings },
            };
            emit({ type: "session.config", sessionId: input.sessionId, config: configState(session) });
          }
          emit({ type: "request.completed", requestId: input.requestId });
          return;
        }
        case "session.interrupt":
        case "session.close":
          emit({ type: "session.closed", sessionId: input.sessionId });
          emit({ type: "request.completed", requestId: input.requestId });
          return;
        case "sessions":
        case "session.revert":
        case "session.archive":
        case "session.unarchive":
          emit({ type: "request.failed", requestId: input.requestId, error: { message: `Unsupported: ${input.type}` } });
          return;
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      for (const [sessionId] of sessions) emit({ type: "session.closed", sessionId });
      sessions.clear();
      listeners.clear();
    },
  };
}

export const cliAgent: ProviderRegistration = {
  id: "cli-agent",
  label: "CLI Agent",
  description: "Runs the CLI agent on this machine.",
  icon: "icons/cli-agent.svg",
  providerOptionsSchema: z.object({ binary: z.string().default("cli-agent") }).strict(),
  async getCatalogCacheKey(options) {
    const binary = options.providerOptions?.["binary"];
    return options.scope === "workspace" ? `${binary}:${options.cwd}` : `${binary}`;
  },
  async checkAvailability(options) {
    const found = options.force === true;
    return ProviderAvailabilitySchema.parse(found ? { status: "available" } : { status: "missing", diagnostic: "cli-agent is not on PATH" });
  },
  async connect(request) {
    if (!request.versions.includes(PROVIDER_PROTOCOL_VERSION)) throw new Error("No common protocol version");
    return cliConnection(request);
  },
};

// The capability helpers.
const all: readonly ProviderCapability[] = PROVIDER_CAPABILITIES;
const maybe: string = "session.list";
if (isProviderCapability(maybe)) {
  const known: ProviderCapability = maybe;
  void known;
}
const needed: readonly ProviderCapability[] = requiredProviderCapabilities({
  type: "session.revert",
  requestId: "r1",
  sessionId: "s1",
  token: { checkpoint: 2 },
  scope: "files",
});
void [all, needed];

// ---------------------------------------------------------------------------------------------
// A usage source for the same agent's accounts.

const accountInput = z.object({ configDir: z.string().min(1) });

export const cliUsage: UsageSourceRegistration = {
  id: "cli-agent-usage",
  label: "CLI Agent",
  provider: "cli-agent",
  icon: "icons/cli-agent.svg",
  input: accountInput,
  async discover(scope: UsageScope) {
    const dir = scope.kind === "session" ? (scope.env["CLI_AGENT_HOME"] ?? "~/.cli-agent") : "~/.cli-agent";
    return [{ key: hashAccountKey(dir), label: "Personal", harness: "CLI Agent", input: { configDir: dir } }];
  },
  async fetch(input) {
    const { configDir } = accountInput.parse(input);
    if (!configDir) return { status: "unavailable", problem: { kind: "no_quota", detail: "no plan" } };
    return {
      status: "available",
      planLabel: "Pro",
      windows: [windowFromUsedPct({ id: "five_hour", label: "5-hour", shortLabel: "5h", summary: true, utilizationPct: 40, resetsAt: null })],
      balances: [{ id: "credits", label: "Credits", remaining: 12, unit: "credits" }],
    };
  },
};

// ---------------------------------------------------------------------------------------------
// A forge for a self-hosted code review server.

const checks: PullRequestCheck[] = [{ name: "ci", status: "success", url: null, workflow: "CI" }];

function pr(number: number): PullRequestSummary {
  return {
    number,
    title: `Change ${number}`,
    url: `https://review.example.com/c/${number}`,
    state: "open",
    body: null,
    baseRefName: "main",
    headRefName: `change-${number}`,
    labels: [],
    updatedAt: "2026-01-01T00:00:00Z",
  };
}

const service: PluginForgeServerService = {
  async listPullRequests({ cwd, query, limit }) {
    void [cwd, query];
    return [pr(1), pr(2)].slice(0, limit ?? 20);
  },
  async listIssues() {
    return [];
  },
  async getPullRequest({ number, force, reason }) {
    void [force, reason];
    return pr(number);
  },
  async getPullRequestHeadRef({ number }) {
    return `refs/changes/${number}`;
  },
  async getPullRequestCheckoutTarget({ number }) {
    return {
      number,
      baseRefName: "main",
      headRefName: `change-${number}`,
      checkoutRefs: [{ remoteRef: `refs/changes/${number}` }],
      headOwnerLogin: null,
      headRepositorySshUrl: null,
      headRepositoryUrl: null,
      isCrossRepository: false,
    };
  },
  defaultCheckoutRefs: ({ changeRequestNumber }) => [{ remoteRef: `refs/changes/${changeRequestNumber}` }],
  buildPrLocalBranchName: ({ checkoutTarget }) => `review/${checkoutTarget.number}`,
  async getCurrentPullRequestStatus({ headRef }): Promise<CurrentPullRequestStatus | null> {
    if (headRef === "main") return null;
    return {
      url: "https://review.example.com/c/1",
      title: "Change 1",
      state: "open",
      baseRefName: "main",
      headRefName: headRef,
      isMerged: false,
      mergeable: "MERGEABLE",
      checks,
      checksStatus: computeChecksStatus(checks),
      reviewDecision: "pending",
      forgeSpecific: { forge: "review", votes: 1 },
    };
  },
  async getPullRequestTimeline({ prNumber, repoOwner, repoName }) {
    return {
      prNumber,
      repoOwner,
      repoName,
      items: [
        { kind: "review", reviewState: "approved", id: "r1", author: "ann", authorUrl: null, avatarUrl: null, body: "LGTM", createdAt: 1, url: "" },
        { kind: "comment", id: "c1", author: "bob", authorUrl: null, avatarUrl: null, body: "nit", createdAt: 2, url: "", location: { path: "a.ts", line: 3 } },
      ],
      truncated: false,
      error: null,
    };
  },
  async getCheckDetails({ checkRunId }) {
    return { checkRunId: checkRunId ?? 0, name: "ci", annotations: [], failedJobs: [], truncated: false, pipeline: null };
  },
  async searchIssuesAndPrs({ query, kinds }) {
    if (!query) return createUnavailableSearchResult("unauthenticated");
    const wanted = normalizeForgeSearchKinds(kinds);
    return {
      items: wanted.includes("change_request") ? [{ kind: "change_request", ...pr(1) }] : [],
      featuresEnabled: true,
      authState: "authenticated",
    };
  },
  async createPullRequest({ title, head, base }) {
    void [title, head, base];
    return { url: "https://review.example.com/c/3", number: 3 };
  },
  async mergePullRequest({ mergeMethod, status }) {
    void [mergeMethod, status?.mergeable];
    return { success: true };
  },
  async enablePullRequestAutoMerge() {
    return { success: true };
  },
  async disablePullRequestAutoMerge() {
    return { success: true };
  },
  async isAuthenticated() {
    return true;
  },
  invalidate() {},
  authProbeCanThrow: true,
};

export const reviewForge = defineForgeServerProvider({
  definition: {
    id: "review",
    displayName: "Review Server",
    changeRequestAbbrev: "CL",
    changeRequestNoun: "change",
    changeRequestNumberPrefix: "#",
    issueNumberPrefix: "#",
    signIn: { cli: "review", command: "review login", hostnameFlag: "--host" },
    cloudHosts: ["review.example.com"],
  },
  service,
  probeHost: async (host: string) => host.endsWith(".review.internal"),
});

const methods: readonly PluginForgeServiceMethod[] = PLUGIN_FORGE_SERVICE_METHODS;
void methods;

export default function contribute(server: PluginServerContext) {
  server.registerProvider(cliAgent);
  server.registerUsageSource(cliUsage);
  server.addForgeServerProvider(reviewForge);
  return () => {};
}

// ---------------------------------------------------------------------------------------------
// What the types rule out.

export function rejected(server: PluginServerContext, connection: ProviderConnection, emit: (event: ServerProviderEvent) => void) {
  // @ts-expect-error there is no `session.started` event
  emit({ type: "session.started", sessionId: "s1" });
  // @ts-expect-error a turn's state is started, completed, failed or canceled
  emit({ type: "session.turn", sessionId: "s1", turnId: "t1", state: "done" });
  // @ts-expect-error a timeline item needs an id
  emit({ type: "timeline.item", sessionId: "s1", item: { type: "assistant_message", text: "hi" } });
  // @ts-expect-error a failed tool call carries its error; a completed one has `error: null`
  emit({ type: "timeline.item", sessionId: "s1", item: { id: "i", type: "tool_call", callId: "c", name: "n", status: "completed", error: "boom", detail: { type: "plan", text: "" } } });
  // @ts-expect-error a prompt result of type `turn` needs its turnId
  emit({ type: "session.prompt_result", sessionId: "s1", clientMessageId: "m1", result: { type: "turn" } });

  server.registerProvider({
    id: "no-events",
    label: "No events",
    // @ts-expect-error a connection must have onEvent
    async connect() {
      return { version: 1, capabilities: [], async send() {}, async close() {} };
    },
  });
  // @ts-expect-error a provider needs a label
  server.registerProvider({ id: "unlabelled", connect: async () => connection });
  // @ts-expect-error `send` takes protocol inputs, not arbitrary objects
  void connection.send({ type: "session.start", sessionId: "s1" });
  // @ts-expect-error the capability list is fixed
  const capability: ProviderCapability = "session.fork";
  // @ts-expect-error a permission response is allow or deny
  const response: ProviderPermissionResponse = { behavior: "maybe" };

  server.addForgeServerProvider({
    // @ts-expect-error a forge definition needs its nouns and prefixes, and `signIn`
    definition: { id: "bare", displayName: "Bare" },
    service,
  });
  // @ts-expect-error the service must implement every required method
  const partial: PluginForgeServerService = { listPullRequests: async () => [] };
  // @ts-expect-error `authState` is one of the forge auth states
  void createUnavailableSearchResult("signed-out");
  void [capability, response, partial];
}
