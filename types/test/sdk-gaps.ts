// Plugin code that uses what Paseo's SDK declares and the engine's declarations once lacked or
// mistyped (issue 34): RpcInput/RpcOutput, ForgeService and formatCheckDuration, the session-open
// request of `before("agent.session_open")`, a bundled `@getpaseo/client`, typed provider
// results, the whole AgentPermissionRequest, every AgentStreamEvent and the optional workspace
// title. Written as published plugins write it. Each `@ts-expect-error` line must fail. Never
// run, only checked.
import { z } from "zod";
import {
  createPaseoClient,
  type ConnectionState,
  type PaseoApi,
  type PaseoClient,
  type PaseoClientConfig,
} from "@getpaseo/client";
import { defineRpc, type RpcInput, type RpcOutput } from "@getpaseo/plugin";
import {
  computeChecksStatus,
  createUnavailableSearchResult,
  defineForgeServerProvider,
  formatCheckDuration,
  type ForgeService,
  type PluginServerContext,
  type PluginSessionOpenRequest,
  type PullRequestCheck,
  type PullRequestSummary,
  type WorkspaceCreateRequest,
} from "@getpaseo/plugin/server";
import type { AgentPermissionRequest, AgentStreamEvent, ToolCallDetail } from "@getpaseo/protocol/agent-types";

// 1. RPC handlers typed from the contract: the parsed input, the output before parsing.
export const searchIssues = defineRpc({
  name: "issues.search",
  input: z.object({ query: z.string().trim().default(""), limit: z.number().int().min(1).max(50).default(20) }),
  output: z.object({
    items: z.array(z.object({ id: z.string(), title: z.string(), closed: z.boolean().default(false) })),
  }),
});

type SearchInput = RpcInput<typeof searchIssues>;
type SearchOutput = RpcOutput<typeof searchIssues>;

async function runSearch(input: SearchInput): Promise<SearchOutput> {
  const limit: number = input.limit;
  const query: string = input.query;
  // `closed` has a default, so the handler may leave it out.
  return { items: [{ id: "1", title: query }].slice(0, limit) };
}

// 2, 3. A forge adapter for a Gitea-like server, typed with Paseo's `ForgeService` alias.
interface GiteaRun {
  name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: "success" | "failure" | "cancelled" | "skipped" | null;
  html_url: string | null;
  started_at: string | null;
  completed_at?: string | null;
}

function toCheck(run: GiteaRun): PullRequestCheck {
  const status: PullRequestCheck["status"] =
    run.status !== "completed" ? "pending" : run.conclusion === null ? "failure" : run.conclusion;
  const duration: string | undefined = formatCheckDuration(run.started_at, run.completed_at);
  return { name: run.name, status, url: run.html_url, ...(duration ? { duration } : {}) };
}

function change(number: number): PullRequestSummary {
  return {
    number,
    title: `Change ${number}`,
    url: `https://git.example.com/o/r/pulls/${number}`,
    state: "open",
    body: null,
    baseRefName: "main",
    headRefName: `feature-${number}`,
    labels: [],
    updatedAt: "2026-01-01T00:00:00Z",
  };
}

export function createGiteaService(runs: () => Promise<GiteaRun[]>): ForgeService {
  const cache = new Map<string, PullRequestSummary[]>();
  return {
    async listPullRequests({ cwd, limit }) {
      const cached = cache.get(cwd) ?? [change(1)];
      cache.set(cwd, cached);
      return cached.slice(0, limit ?? 20);
    },
    listIssues: async () => [],
    getPullRequest: async ({ number }) => change(number),
    getPullRequestHeadRef: async ({ number }) => `refs/pull/${number}/head`,
    async getPullRequestCheckoutTarget({ number }) {
      return {
        number,
        baseRefName: "main",
        headRefName: `feature-${number}`,
        headOwnerLogin: null,
        headRepositorySshUrl: null,
        headRepositoryUrl: null,
        isCrossRepository: false,
      };
    },
    async getCurrentPullRequestStatus({ headRef }) {
      const checks = (await runs()).map(toCheck);
      return {
        url: "https://git.example.com/o/r/pulls/1",
        title: "Change 1",
        state: "open",
        baseRefName: "main",
        headRefName: headRef,
        isMerged: false,
        mergeable: "UNKNOWN",
        checks,
        checksStatus: computeChecksStatus(checks),
        reviewDecision: null,
      };
    },
    getPullRequestTimeline: async ({ prNumber, repoOwner, repoName }) => ({
      prNumber,
      repoOwner,
      repoName,
      items: [],
      truncated: false,
      error: null,
    }),
    getCheckDetails: async ({ checkRunId }) => ({
      checkRunId: checkRunId ?? 0,
      name: "ci",
      annotations: [],
      failedJobs: [],
      truncated: false,
    }),
    searchIssuesAndPrs: async () => createUnavailableSearchResult("cli_missing"),
    createPullRequest: async () => ({ url: "https://git.example.com/o/r/pulls/2", number: 2 }),
    mergePullRequest: async () => ({ success: true }),
    enablePullRequestAutoMerge: async () => ({ success: true }),
    disablePullRequestAutoMerge: async () => ({ success: true }),
    isAuthenticated: async () => true,
    invalidate: ({ cwd }) => {
      cache.delete(cwd);
    },
  };
}

/** Drops the cache of every wrapped service together. */
function invalidatingTogether(services: ForgeService[]): ForgeService[] {
  return services.map((service) => ({
    ...service,
    invalidate: async ({ cwd }: { cwd: string }) => {
      await Promise.all(services.map((each) => each.invalidate({ cwd })));
    },
  }));
}

export const giteaForge = defineForgeServerProvider({
  definition: {
    id: "gitea",
    displayName: "Gitea",
    changeRequestAbbrev: "PR",
    changeRequestNoun: "pull request",
    changeRequestNumberPrefix: "#",
    issueNumberPrefix: "#",
    signIn: null,
  },
  service: invalidatingTogether([createGiteaService(async () => [])])[0]!,
});

const unfinished: string | undefined = formatCheckDuration("2026-01-01T00:00:00Z");
void unfinished;
// @ts-expect-error a duration is formatted from ISO strings, not milliseconds
formatCheckDuration(Date.now(), Date.now());

// 4. What `before("agent.session_open")` handlers work with.
function sessionEnv(request: PluginSessionOpenRequest): Record<string, string> {
  if (request.purpose === "history") return request.env;
  const reason: "create" | "resume" | "refresh" | "import" = request.reason;
  return {
    ...request.env,
    TRACE_AGENT: request.agentId,
    TRACE_WORKSPACE: request.workspaceId ?? "",
    TRACE_PROVIDER: request.provider,
    TRACE_CWD: request.cwd,
    TRACE_REASON: reason,
  };
}

// 5. A plugin that bundles `@getpaseo/client` to reach another daemon.
const remoteDefaults: Omit<PaseoClientConfig, "url"> = {
  clientId: "mirror-plugin",
  connectTimeoutMs: 5_000,
  reconnect: { enabled: true, baseDelayMs: 250, maxDelayMs: 5_000 },
  logger: { debug: () => {}, info: () => {}, warn: (obj, msg) => console.warn(msg, obj), error: (obj) => console.error(obj) },
};

export async function withRemoteDaemon<T>(url: string, run: (client: PaseoClient) => Promise<T>): Promise<T> {
  const client = createPaseoClient({ ...remoteDefaults, url, password: process.env.REMOTE_PASEO_PASSWORD });
  await client.connect();
  try {
    client.ensureConnected();
    const state: ConnectionState = client.getConnectionState();
    if (state.status === "disconnected") throw new Error(state.reason ?? "disconnected");
    if (state.status === "connecting") void state.attempt;
    return await run(client);
  } finally {
    await client.close();
  }
}

export const mirrorAgents = (url: string) =>
  withRemoteDaemon(url, async (client) => (await client.agents.list({ page: { limit: 50 } })).entries.length);

// 6, 7. Provider results as Paseo types them.
export async function defaultModel(paseo: PaseoApi, provider: string, cwd: string): Promise<string | null> {
  const snapshot = await paseo.providers.snapshot({ cwd });
  const generated: string = snapshot.generatedAt;
  const requestId: string = snapshot.requestId;
  const where: string | undefined = snapshot.cwd;
  void [generated, requestId, where];
  const entry = snapshot.entries.find((each) => each.provider === provider && each.enabled);
  if (entry?.status === "ready") {
    const fromSnapshot = entry.models?.find((model) => model.isDefault)?.id;
    if (fromSnapshot) return fromSnapshot;
  }

  const listed = await paseo.providers.listModels(provider, { cwd });
  if (listed.error) throw new Error(`${listed.provider}: ${listed.error} (at ${listed.fetchedAt}, ${listed.requestId})`);
  const model = listed.models?.find((each) => each.isDefault) ?? listed.models?.[0];
  const thinking: string | undefined = model?.thinkingOptions?.find((option) => option.isDefault)?.id;
  void thinking;
  return model?.id ?? null;
}

export async function providerReport(paseo: PaseoApi, cwd: string): Promise<string[]> {
  const lines: string[] = [];
  const modes = await paseo.providers.listModes("claude", { cwd });
  lines.push(...(modes.modes ?? []).map((mode) => `${modes.provider} mode ${mode.id}: ${mode.label}`));
  const features = await paseo.providers.listFeatures({ provider: "claude/sonnet", cwd });
  for (const feature of features.features ?? []) {
    lines.push(feature.type === "select" ? `${feature.id}=${feature.value ?? "-"}` : `${feature.id}=${feature.value}`);
  }
  const available = await paseo.providers.listAvailable();
  lines.push(...available.providers.filter((each) => !each.available).map((each) => `${each.provider}: ${each.error ?? "unavailable"}`));
  const ready = await paseo.providers.waitForReady({ cwd, timeoutMs: 10_000 });
  lines.push(`${ready.entries.length} providers`);
  const refreshed = await paseo.providers.refresh({ cwd, providers: ["codex"] });
  const acknowledged: boolean = refreshed.acknowledged;
  const diagnostic: string = (await paseo.providers.diagnostic("codex")).diagnostic;
  lines.push(String(acknowledged), diagnostic);
  const usage = await paseo.providers.listUsage();
  for (const provider of usage.providers) {
    const worst = Math.max(0, ...provider.windows.map((window) => window.usedPct ?? 0));
    lines.push(`${provider.displayName} (${provider.status}): ${worst}%`);
  }
  const stop = paseo.providers.subscribe((update) => {
    lines.push(`${update.entries.filter((entry) => entry.status === "error").length} failing at ${update.generatedAt}`);
  });
  stop();
  return lines;
}

// 8. Permission requests with Paseo's detail, suggestions, actions and metadata.
export function describePermission(request: AgentPermissionRequest): string {
  const detail: ToolCallDetail | undefined = request.detail;
  const allow = request.actions?.find((action) => action.behavior === "allow" && action.variant === "primary");
  const remembered = request.suggestions?.length ?? 0;
  const origin = request.metadata?.["origin"];
  void [allow?.label, remembered, origin];
  if (detail?.type === "shell") return `Run ${detail.command}${detail.cwd ? ` in ${detail.cwd}` : ""}`;
  if (detail?.type === "edit" || detail?.type === "write") return `Change ${detail.filePath}`;
  return request.title ?? request.name;
}

// 9. Every stream event Paseo's agent-types declares.
export function summarize(event: AgentStreamEvent): string {
  switch (event.type) {
    case "usage_updated":
      return `${event.provider} used ${event.usage.outputTokens ?? 0} tokens`;
    case "mode_changed":
      return `mode ${event.currentModeId ?? "default"} of ${event.availableModes.map((mode) => mode.id).join(",")}`;
    case "model_changed":
      return `model ${event.runtimeInfo.model ?? "default"}`;
    case "thinking_option_changed":
      return `thinking ${event.thinkingOptionId ?? "off"}`;
    case "permission_requested":
      return describePermission(event.request);
    case "timeline":
      return event.item.type;
    case "turn_failed":
      return event.error;
    default:
      return event.type;
  }
}

export function clearTitle(request: WorkspaceCreateRequest): WorkspaceCreateRequest {
  const { title, ...rest } = request;
  void title;
  return rest;
}

export function nullTitle(request: WorkspaceCreateRequest): WorkspaceCreateRequest {
  // @ts-expect-error Paseo's schema has no null title; leave it out instead (clearTitle)
  return { ...request, title: null };
}

export default function contribute(server: PluginServerContext) {
  server.handle(searchIssues, (input) => runSearch(input));
  server.addForgeServerProvider(giteaForge);

  const removers = [
    server.before("agent.session_open", async ({ request }) => ({ ...request, env: sessionEnv(request) })),

    server.on("agent.permission_requested", async ({ agent, request }, { paseo }) => {
      const handle = paseo.agents.ref(agent.id);
      for (const pending of handle.pendingPermissions ?? []) console.log(describePermission(pending));
      console.log(describePermission(request));
    }),

    // 10. The workspace title is optional, as in Paseo's WorkspaceCreateRequestSchema.
    server.addHook("workspace.create.before", async ({ request }) => {
      const title: string | undefined = request.title;
      if (title === undefined) return { ...request, title: "Scratch" };
      return { ...request, title: title.trim() };
    }),
  ];
  return () => removers.forEach((remove) => remove());
}
