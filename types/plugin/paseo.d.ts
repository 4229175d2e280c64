// The SDK behind `server.paseo` and `context.paseo` (Paseo's `@getpaseo/client` `PaseoApi`).
// Hand-written and deliberately loose: members plugins are known to use are typed, the daemon's
// own records are open objects (`[key: string]: unknown`), and rarely used calls take and
// return `unknown`.
import type { AgentPermissionRequest, McpServers, WorkspaceSource } from "../hooks.generated";

export interface PaseoApi {
  dispose(): Promise<void>;
  observeEvents(...args: unknown[]): unknown;
  readonly agents: PaseoAgentActions;
  readonly workspaces: PaseoWorkspaceActions;
  readonly projects: {
    list(options?: PaseoListOptions): Promise<PaseoListResult<{ project: PaseoProject }>>;
    subscribe(handler: (event: unknown) => void): () => void;
  };
  readonly terminals: PaseoTerminalActions;
  readonly providers: PaseoProviderActions;
  readonly config: {
    get(requestId?: string): Promise<Record<string, unknown>>;
    patch(patch: Record<string, unknown>, requestId?: string): Promise<unknown>;
  };
}

export interface PaseoListOptions {
  scope?: string;
  sort?: unknown;
  page?: { limit?: number; cursor?: string | null };
  /** `{}` asks for an owned live subscription (`result.subscription`). */
  subscribe?: Record<string, unknown>;
  requestId?: string;
  [option: string]: unknown;
}

export interface PaseoListResult<Entry> {
  requestId: string;
  subscriptionId?: string;
  entries: Entry[];
  pageInfo: { nextCursor?: string | null; hasMore?: boolean; [key: string]: unknown };
  subscription?: PaseoSubscription;
}

export interface PaseoSubscription {
  subscribe(handler: (event: unknown) => void): () => void;
  release(): void | Promise<void>;
}

export interface PaseoProject {
  id: string;
  [key: string]: unknown;
}

/** The daemon's record of an agent. */
export interface PaseoAgent {
  id: string;
  provider: string;
  cwd: string;
  status: string;
  title: string | null;
  workspaceId?: string | null;
  labels?: Record<string, string>;
  [key: string]: unknown;
}

export interface PaseoAgentActions {
  list(options?: PaseoListOptions): Promise<PaseoListResult<{ agent: PaseoAgent; project: PaseoProject | null }>>;
  /** A local handle; makes no request. */
  ref(agentOrId: string | { id: string }): PaseoAgentHandle;
  create(options: PaseoAgentCreateOptions): Promise<PaseoAgentHandle>;
  subscribe(handler: (update: unknown) => void): () => void;
}

export interface PaseoAgentCreateOptions {
  config: {
    /** `"provider/model"`. */
    provider: string;
    modeId?: string;
    thinkingOptionId?: string;
    featureValues?: Record<string, unknown>;
    /** Sent as `providerOptions`. */
    options?: Record<string, unknown>;
    systemPrompt?: string;
    toolPolicy?: { preapproved: { kind: "mcp"; server: string; tool: string }[] };
    mcpServers?: McpServers;
  };
  cwd: string;
  /** The calling agent's ID. */
  parent?: string;
  title?: string;
  env?: Record<string, string>;
  /** The first message (`initialPrompt`). */
  prompt?: string;
  labels?: Record<string, string>;
  idempotencyKey?: string;
  agentId?: string;
  requestId?: string;
  onEvent?: (event: unknown) => void;
  [option: string]: unknown;
}

export interface PaseoSendOptions {
  messageId?: string;
  images?: { data: string; mimeType: string }[];
  attachments?: unknown[];
}

export interface PaseoWaitForFinishResult {
  status: string;
  [key: string]: unknown;
}

/** `agents.ref(id)`: state fields are `null` until the first agent state arrives. */
export interface PaseoAgentHandle {
  readonly id: string;
  readonly workspaceId: string | null;
  readonly cwd: string | null;
  readonly status: string | null;
  readonly capabilities: unknown;
  readonly availableModes: unknown;
  readonly pendingPermissions: readonly AgentPermissionRequest[] | null;
  readonly activeTurn: unknown;
  readonly lastUsage: unknown;
  readonly lastError: unknown;
  readonly features: unknown;
  readonly runtimeInfo: unknown;
  readonly archivedAt: string | null;
  readonly timeline: PaseoAgentTimeline;
  current(): PaseoAgent | null;
  /** Reads the current snapshot; does not reopen the session. */
  refresh(requestId?: string): Promise<{ agent: PaseoAgent; project: PaseoProject | null } | null>;
  /** Reopens the provider session (`agent.open.before` runs with `reason: "refresh"`). */
  reload(options?: { requestId?: string }): Promise<void>;
  send(text: string, options?: PaseoSendOptions): Promise<void>;
  respondToPermission(options: { requestId: string; response: AgentPermissionResponse }): Promise<void>;
  /** Sends and waits (10 minutes by default). */
  run(text: string, options?: PaseoSendOptions & { timeoutMs?: number }): Promise<PaseoWaitForFinishResult>;
  waitForFinish(timeoutMs?: number): Promise<PaseoWaitForFinishResult>;
  commands(options?: Record<string, unknown>): Promise<unknown>;
  archive(): Promise<{ archivedAt: string }>;
  detach(): Promise<void>;
  subscribe(handler: (event: unknown) => void): () => void;
}

export interface PaseoTimelineCursor {
  epoch: string;
  seq: number;
}

export interface PaseoTimelinePage {
  entries: { item: AgentTimelineItem; seqStart?: number; timestamp?: string }[];
  startCursor?: PaseoTimelineCursor | null;
  hasOlder?: boolean;
  error?: string | null;
  [key: string]: unknown;
}

export interface PaseoAgentTimeline {
  /** Adds or replaces (same plugin and `id`) a plugin row; `data` is at most 64 KiB of JSON. */
  append(item: { type: "plugin"; id: string; kind: string; version: number; data: unknown }): Promise<{ seq: number; epoch: string }>;
  refetch(options?: {
    direction?: "tail" | "before" | "after";
    cursor?: PaseoTimelineCursor;
    limit?: number;
    projection?: "projected" | "canonical";
    requestId?: string;
  }): Promise<PaseoTimelinePage>;
  subscribe(handler: (event: unknown) => void): () => void;
}

export interface PaseoWorkspaceActions {
  list(options?: PaseoListOptions): Promise<PaseoListResult<{ workspace: PaseoWorkspace; [key: string]: unknown }>>;
  ref(workspaceOrId: string | { id: string }): PaseoWorkspaceHandle;
  open(cwd: string | { cwd: string; requestId?: string }): Promise<PaseoWorkspaceHandle>;
  create(options: {
    source: WorkspaceSource;
    title?: string | null;
    firstAgentContext?: Record<string, unknown>;
    agent?: Record<string, unknown>;
    onEvent?: (event: unknown) => void;
    requestId?: string;
    idempotencyKey?: string;
  }): Promise<PaseoWorkspaceHandle>;
  archive(workspaceOrId: string | { id: string }, requestId?: string): Promise<unknown>;
  subscribe(handler: (event: unknown) => void): () => void;
  readonly labels: { list(): Promise<unknown> };
}

export interface PaseoWorkspace {
  id: string;
  [key: string]: unknown;
}

export interface PaseoWorkspaceHandle {
  readonly id: string;
  readonly projectId: string | null;
  readonly directory: string | null;
  readonly name: string | null;
  readonly status: string | null;
  readonly agents: { create(options: Omit<PaseoAgentCreateOptions, "cwd">): Promise<PaseoAgentHandle> };
  readonly terminals: { create(options?: Record<string, unknown>): Promise<unknown>; list(): Promise<unknown[]> };
  current(): PaseoWorkspace | null;
  refresh(requestId?: string): Promise<{ workspace: PaseoWorkspace; [key: string]: unknown } | null>;
  setTitle(title: string | null): Promise<void>;
  setLabel(label: string, assigned: boolean): Promise<void>;
  archive(): Promise<unknown>;
  subscribe(handler: (event: unknown) => void): () => void;
}

export interface PaseoTerminalActions {
  [member: string]: (...args: any[]) => unknown;
}

export interface PaseoProviderActions {
  listModels(...args: any[]): Promise<unknown>;
  listModes(...args: any[]): Promise<unknown>;
  listFeatures(...args: any[]): Promise<unknown>;
  listAvailable(...args: any[]): Promise<unknown>;
  snapshot(...args: any[]): Promise<unknown>;
  waitForReady(...args: any[]): Promise<unknown>;
  refresh(...args: any[]): Promise<unknown>;
  diagnostic(...args: any[]): Promise<unknown>;
  listUsage(...args: any[]): Promise<unknown>;
  subscribe(handler: (event: unknown) => void): () => void;
}

/** How a permission request was answered (`agent.permission.after`'s `resolution` is one). */
export type AgentPermissionResponse =
  | {
      behavior: "allow";
      selectedActionId?: string;
      updatedInput?: Record<string, unknown>;
      updatedPermissions?: Record<string, unknown>[];
    }
  | { behavior: "deny"; selectedActionId?: string; message?: string; interrupt?: boolean };

/** One timeline row (Paseo's `@getpaseo/protocol/agent-types`). */
export type AgentTimelineItem =
  | { type: "user_message"; text: string; messageId?: string; clientMessageId?: string }
  | { type: "assistant_message"; text: string; messageId?: string }
  | { type: "reasoning"; text: string }
  | {
      type: "tool_call";
      callId: string;
      name: string;
      detail: { type: string; [key: string]: unknown };
      status: "running" | "completed" | "failed" | "canceled";
      error: unknown;
      metadata?: Record<string, unknown>;
    }
  | {
      type: "todo";
      items: { text: string; completed: boolean; id?: string; status?: string; activeForm?: string }[];
    }
  | { type: "error"; message: string }
  | { type: "compaction"; status: "loading" | "completed"; trigger?: string; preTokens?: number }
  | { type: "plugin"; id: string; pluginId: string; kind: string; version: number; data: unknown };
