// The SDK behind `server.paseo` and `context.paseo`: `@getpaseo/client`'s `PaseoApi`. Shapes follow
// Paseo's packages/client/src/index.ts and the protocol payloads it derives them from
// (packages/protocol/src/messages.ts, agent-types.ts). Members whose payloads are not pinned
// down here (terminals, observeEvents) stay loose. The module also declares what a plugin that
// bundles `@getpaseo/client` calls to reach a daemon itself (`createPaseoClient`); the engine
// does not provide that module at run time, as Paseo does not.
import type {
  AgentCapabilityFlags,
  AgentFeature,
  AgentLifecycleStatus,
  AgentMode,
  AgentModelDefinition,
  AgentPermissionRequest,
  AgentPermissionResponse,
  AgentPersistenceHandle,
  AgentRuntimeInfo,
  AgentStreamEventPayload,
  AgentTimelineItem,
  AgentUsage,
  McpServerConfig,
  AgentSelectOption,
  PluginTimelineItem,
  ProviderOptions,
  ProviderSnapshotEntry,
  ToolPolicy,
} from "../protocol/agent-types";

export type { AgentPermissionResponse, AgentTimelineItem } from "../protocol/agent-types";

export interface PaseoApi {
  /** Releases every subscription this API owns. */
  dispose(): Promise<void>;
  observeEvents(...args: unknown[]): unknown;
  readonly terminals: PaseoTerminalActions;
  readonly workspaces: PaseoWorkspaceActions;
  readonly projects: PaseoProjectActions;
  readonly agents: PaseoAgentActions;
  readonly providers: PaseoProviderActions;
  readonly config: PaseoConfigActions;
}

// Subscriptions.

/** A daemon message as subscription observers see it. */
export interface PaseoSessionMessage {
  type: string;
  payload?: unknown;
}

export type SubscriptionSnapshot<T> = T & { subscriptionId: string };

export interface SubscriptionObserver<T> {
  snapshot(snapshot: T): void;
  update(message: PaseoSessionMessage): void;
  error?(error: unknown): void;
}

/** A live list subscription (`list({ subscribe: {} })`); IDs change on reconnect. */
export interface OwnedSubscription<T> {
  readonly subscriptionId: string | null;
  readonly ready: Promise<SubscriptionSnapshot<T>>;
  subscribe(observer: SubscriptionObserver<SubscriptionSnapshot<T>>): () => void;
  release(): Promise<void>;
}

/** Asks `list()` for a live subscription; the host assigns the ID. */
export interface PaseoSubscribeOption {
  subscriptionId?: string;
}

// Projects.

/** A project as the directory lists it. */
export interface PaseoProject {
  projectId: string;
  projectKey?: string;
  projectDisplayName: string;
  projectCustomName?: string | null;
  projectCustomIconRevision?: string | null;
  projectRootPath: string;
  projectKind: "git" | "non_git" | "directory";
}

export interface PaseoProjectListOptions {
  requestId?: string;
}

export interface PaseoProjectListResult {
  requestId: string;
  projects: PaseoProject[];
}

export type PaseoProjectUpdate = { kind: "upsert"; project: PaseoProject } | { kind: "remove"; projectId: string };

export type PaseoProjectUpdateHandler = (update: PaseoProjectUpdate) => void;

export interface PaseoProjectActions {
  list(options?: PaseoProjectListOptions): Promise<PaseoProjectListResult>;
  subscribe(handler: PaseoProjectUpdateHandler): () => void;
}

/** The checkout behind a project placement. */
export type PaseoProjectCheckout =
  | {
      cwd: string;
      isGit: false;
      currentBranch: null;
      remoteUrl: null;
      worktreeRoot: null;
      isPaseoOwnedWorktree: false;
      mainRepoRoot: null;
    }
  | {
      cwd: string;
      isGit: true;
      currentBranch: string | null;
      remoteUrl: string | null;
      worktreeRoot: string;
      isPaseoOwnedWorktree: false;
      mainRepoRoot: string | null;
    }
  | {
      cwd: string;
      isGit: true;
      currentBranch: string | null;
      remoteUrl: string | null;
      worktreeRoot: string;
      isPaseoOwnedWorktree: true;
      mainRepoRoot: string;
    };

/** Where an agent or workspace sits (`ProjectPlacementPayload`). */
export interface PaseoProjectPlacement {
  projectKey: string;
  projectName: string;
  workspaceName?: string | null;
  checkout: PaseoProjectCheckout;
}

// Agents.

/** The daemon's snapshot of an agent (`AgentSnapshotPayload`). */
export interface PaseoAgent {
  id: string;
  provider: string;
  cwd: string;
  workspaceId?: string;
  model: string | null;
  features?: AgentFeature[];
  thinkingOptionId?: string | null;
  effectiveThinkingOptionId?: string | null;
  createdAt: string;
  updatedAt: string;
  lastUserMessageAt: string | null;
  status: AgentLifecycleStatus;
  activeTurn?: { turnId: string; startedAt: string | null } | null;
  capabilities: AgentCapabilityFlags;
  currentModeId: string | null;
  availableModes: AgentMode[];
  pendingPermissions: AgentPermissionRequest[];
  persistence: AgentPersistenceHandle | null;
  runtimeInfo?: AgentRuntimeInfo;
  lastUsage?: AgentUsage;
  lastError?: string;
  title: string | null;
  labels: Record<string, string>;
  requiresAttention?: boolean;
  attentionReason?: "finished" | "error" | "permission" | null;
  attentionTimestamp?: string | null;
  archivedAt?: string | null;
  providerUnavailable?: boolean;
}

export interface PaseoAgentListOptions {
  scope?: "active";
  filter?: {
    labels?: Record<string, string>;
    projectKeys?: string[];
    statuses?: AgentLifecycleStatus[];
    includeArchived?: boolean;
    requiresAttention?: boolean;
    thinkingOptionId?: string | null;
  };
  sort?: { key: "status_priority" | "created_at" | "updated_at" | "title"; direction: "asc" | "desc" }[];
  /** `limit` is 1–200. */
  page?: { limit: number; cursor?: string };
  subscribe?: PaseoSubscribeOption;
  requestId?: string;
}

export interface PaseoAgentListEntry {
  agent: PaseoAgent;
  project: PaseoProjectPlacement;
  searchScore?: number;
  searchMatches?: { field: "workspace" | "title" | "branch" | "project"; ranges: { start: number; length: number }[] }[];
}

export interface PaseoPageInfo {
  nextCursor: string | null;
  prevCursor: string | null;
  hasMore: boolean;
}

export interface PaseoAgentListResult {
  subscription?: OwnedSubscription<PaseoAgentListResult>;
  requestId: string;
  subscriptionId?: string | null;
  entries: PaseoAgentListEntry[];
  pageInfo: PaseoPageInfo;
}

export type PaseoAgentUpdate =
  | { kind: "upsert"; agent: PaseoAgent; project?: PaseoProjectPlacement | null }
  | { kind: "remove"; agentId: string };

export type PaseoAgentUpdateHandler = (update: PaseoAgentUpdate) => void;

export interface PaseoAgentActions {
  list(options: PaseoAgentListOptions & { subscribe: PaseoSubscribeOption }): Promise<
    PaseoAgentListResult & { subscriptionId: string; subscription: OwnedSubscription<PaseoAgentListResult> }
  >;
  list(options?: PaseoAgentListOptions): Promise<PaseoAgentListResult>;
  /** A local handle; makes no request. */
  ref(agent: string | PaseoAgent): PaseoAgentHandle;
  create(options: PaseoAgentCreateOptions): Promise<PaseoAgentHandle>;
  /** Local listener for agent updates; the returned function removes it. */
  subscribe(handler: PaseoAgentUpdateHandler): () => void;
}

export interface PaseoAgentConfig {
  /** `"provider/model"`. */
  provider: string;
  modeId?: string;
  thinkingOptionId?: string;
  featureValues?: Record<string, unknown>;
  /** JSON-safe provider-native settings, sent as `providerOptions`. */
  options?: ProviderOptions;
  systemPrompt?: string;
  toolPolicy?: ToolPolicy;
  mcpServers?: Record<string, McpServerConfig>;
}

/** Worktree setup for a new agent (`GitSetupOptions`). */
export interface PaseoAgentGitOptions {
  baseBranch?: string;
  createNewBranch?: boolean;
  newBranchName?: string;
  createWorktree?: boolean;
  worktreeSlug?: string;
  refName?: string;
  action?: "branch-off" | "checkout";
  checkoutSource?: PaseoChangeRequestCheckoutSource;
  /** Legacy; prefer `checkoutSource`. */
  githubPrNumber?: number;
}

export type PaseoAgentWorktreeTarget =
  | { mode: "branch-off"; newBranch: string; base?: string }
  | { mode: "checkout-branch"; branch: string }
  | { mode: "checkout-pr"; prNumber: number };

/** Progress of a workspace or agent creation, passed to `onEvent`. */
export type PaseoCreationSnapshot = Record<string, unknown>;

export interface PaseoAgentCreateOptions {
  idempotencyKey?: string;
  agentId?: string;
  onEvent?: (snapshot: PaseoCreationSnapshot) => void;
  config: PaseoAgentConfig;
  cwd: string;
  /** The calling agent (sent as `callerAgentId`). */
  parent?: string | PaseoAgentHandle;
  title?: string | null;
  env?: Record<string, string>;
  /** The first message (`initialPrompt`). */
  prompt?: string;
  clientMessageId?: string;
  outputSchema?: Record<string, unknown>;
  images?: { data: string; mimeType: string }[];
  attachments?: unknown[];
  git?: PaseoAgentGitOptions;
  worktree?: PaseoAgentWorktreeTarget;
  autoArchive?: boolean;
  requestId?: string;
  labels?: Record<string, string>;
}

export type PaseoWorkspaceAgentCreateOptions = Omit<PaseoAgentCreateOptions, "cwd">;

export interface PaseoAgentRefetchResult {
  agent: PaseoAgent;
  project: PaseoProjectPlacement | null;
}

export interface PaseoAgentSendOptions {
  messageId?: string;
  images?: Array<{ data: string; mimeType: string }>;
  attachments?: unknown[];
}

export interface PaseoAgentRunOptions extends PaseoAgentSendOptions {
  timeoutMs?: number;
}

/** How a turn ended (`WaitForFinishResult`). */
export interface PaseoAgentRunResult {
  status: "idle" | "error" | "permission" | "timeout";
  final: PaseoAgent | null;
  error: string | null;
  lastMessage: string | null;
}

export type PaseoAgentPermissionResponse = AgentPermissionResponse;

export interface PaseoAgentRespondToPermissionOptions {
  requestId: string;
  response: PaseoAgentPermissionResponse;
}

export interface PaseoAgentCommandsOptions {
  requestId?: string;
}

/** The session's slash commands and skills; a provider that cannot answer sets `error`. */
export interface PaseoAgentCommandsResult {
  [key: string]: unknown;
  error?: string | null;
}

/** `agents.ref(id)`: state fields read `null` until the handle has seen a snapshot. */
export interface PaseoAgentHandle {
  readonly id: string;
  readonly workspaceId: string | null;
  readonly cwd: string | null;
  readonly status: PaseoAgent["status"] | null;
  readonly capabilities: PaseoAgent["capabilities"] | null;
  readonly availableModes: PaseoAgent["availableModes"] | null;
  readonly pendingPermissions: PaseoAgent["pendingPermissions"] | null;
  readonly activeTurn: NonNullable<PaseoAgent["activeTurn"]> | null;
  readonly lastUsage: NonNullable<PaseoAgent["lastUsage"]> | null;
  readonly lastError: NonNullable<PaseoAgent["lastError"]> | null;
  readonly features: NonNullable<PaseoAgent["features"]> | null;
  readonly runtimeInfo: NonNullable<PaseoAgent["runtimeInfo"]> | null;
  readonly archivedAt: NonNullable<PaseoAgent["archivedAt"]> | null;
  readonly timeline: PaseoAgentTimelineHandle;
  current(): PaseoAgent | null;
  /** Reads the current snapshot; does not reopen the session. */
  refresh(requestId?: string): Promise<PaseoAgentRefetchResult | null>;
  /** Reopens the provider session (`agent.open.before` runs with `reason: "refresh"`). */
  reload(options?: { requestId?: string }): Promise<void>;
  send(text: string, options?: PaseoAgentSendOptions): Promise<void>;
  respondToPermission(options: PaseoAgentRespondToPermissionOptions): Promise<void>;
  /** Sends and resolves when that turn finishes or needs attention (10 minutes by default). */
  run(text: string, options?: PaseoAgentRunOptions): Promise<PaseoAgentRunResult>;
  /** Waits for the current turn, including one started with `prompt`. */
  waitForFinish(timeoutMs?: number): Promise<PaseoAgentRunResult>;
  commands(options?: PaseoAgentCommandsOptions): Promise<PaseoAgentCommandsResult>;
  archive(): Promise<{ archivedAt: string }>;
  detach(): Promise<void>;
  subscribe(handler: (update: PaseoAgentUpdate) => void): () => void;
}

// Timeline.

export interface PaseoTimelineCursor {
  epoch: string;
  seq: number;
}

export type PaseoAgentTimelineDirection = "tail" | "before" | "after";
export type PaseoAgentTimelineProjection = "projected" | "canonical";

export interface PaseoAgentTimelineRefetchOptions {
  direction?: PaseoAgentTimelineDirection;
  cursor?: PaseoTimelineCursor;
  /** 0 means every row of the window. */
  limit?: number;
  projection?: PaseoAgentTimelineProjection;
  requestId?: string;
}

export interface PaseoAgentTimelineEntry {
  provider: string;
  item: AgentTimelineItem;
  timestamp: string;
  seqStart: number;
  seqEnd: number;
  sourceSeqRanges: { startSeq: number; endSeq: number }[];
  collapsed: ("assistant_merge" | "reasoning_merge" | "tool_lifecycle")[];
}

/** A timeline page (`FetchAgentTimelinePayload`); `error` is set instead of rejecting. */
export interface PaseoTimelinePage {
  requestId: string;
  agentId: string;
  agent: PaseoAgent | null;
  direction: PaseoAgentTimelineDirection;
  projection: PaseoAgentTimelineProjection;
  epoch: string;
  reset: boolean;
  staleCursor: boolean;
  gap: boolean;
  window: { minSeq: number; maxSeq: number; nextSeq: number };
  startCursor: PaseoTimelineCursor | null;
  endCursor: PaseoTimelineCursor | null;
  hasOlder: boolean;
  hasNewer: boolean;
  mergeWindow?: boolean;
  entries: PaseoAgentTimelineEntry[];
  error: string | null;
}

/** An `agent_stream` event; timeline events carry `seq` and `epoch`. */
export interface PaseoAgentStream {
  agentId: string;
  event: AgentStreamEventPayload;
  timestamp: string;
  seq?: number;
  epoch?: string;
}

/** What `timeline.subscribe` delivers: stream events and the subscription's own lifecycle. */
export type PaseoAgentTimelineEvent =
  | PaseoAgentStream
  | { agentId: string; event: { type: "replacement"; epoch: string } }
  | { agentId: string; subscriptionId: string; event: { type: "subscription_restored" } }
  | { agentId: string; event: { type: "error"; error: string } };

/** Calling it releases the subscription; await `ready` before work that must be observed. */
export type PaseoAgentTimelineSubscription = (() => void) & {
  readonly ready: Promise<void>;
  readonly subscriptionId: string | null;
  release(): Promise<void>;
};

export interface PaseoAgentTimelineHandle {
  /** Adds or replaces (same plugin and `id`) a plugin row; `data` is at most 64 KiB of JSON. */
  append(item: Omit<PluginTimelineItem, "pluginId">): Promise<{ seq: number; epoch: string }>;
  refetch(options?: PaseoAgentTimelineRefetchOptions): Promise<PaseoTimelinePage>;
  /** Live events only: after a reconnect or `replacement`, refetch what you need. */
  subscribe(handler: (event: PaseoAgentTimelineEvent) => void): PaseoAgentTimelineSubscription;
}

/** @deprecated Use `PaseoAgentTimelineHandle`. */
export type PaseoAgentTimeline = PaseoAgentTimelineHandle;
/** @deprecated Use `PaseoAgentSendOptions`. */
export type PaseoSendOptions = PaseoAgentSendOptions;
/** @deprecated Use `PaseoAgentRunResult`. */
export type PaseoWaitForFinishResult = PaseoAgentRunResult;

// Workspaces.

export interface PaseoWorkspaceScript {
  scriptName: string;
  type: "script" | "service";
  hostname: string;
  port: number | null;
  localProxyUrl?: string | null;
  publicProxyUrl?: string | null;
  proxyUrl: string | null;
  lifecycle: "running" | "stopped";
  health: "healthy" | "unhealthy" | null;
  exitCode: number | null;
  terminalId: string | null;
}

/** The daemon's record of a workspace (`WorkspaceDescriptorPayload`). */
export interface PaseoWorkspace {
  id: string;
  projectId: string;
  projectDisplayName: string;
  projectCustomName?: string | null;
  projectCustomIconRevision?: string | null;
  projectRootPath: string;
  /** The directory agents run in; the project root when the daemon sends none. */
  workspaceDirectory: string;
  worktreeSlug?: string;
  projectKind: "git" | "non_git" | "directory";
  workspaceKind: "directory" | "local_checkout" | "checkout" | "worktree";
  /** The title when one is set, else the branch or directory name. */
  name: string;
  title?: string | null;
  pinnedAt?: string | null;
  archivingAt: string | null;
  status: "needs_input" | "failed" | "running" | "attention" | "done";
  statusEnteredAt: string | null;
  activityAt: string | null;
  diffStat?: { additions: number; deletions: number } | null;
  scripts: PaseoWorkspaceScript[];
  gitRuntime?: {
    currentBranch?: string | null;
    remoteUrl?: string | null;
    isPaseoOwnedWorktree?: boolean;
    isDirty?: boolean | null;
    aheadBehind?: { ahead: number; behind: number } | null;
    aheadOfOrigin?: number | null;
    behindOfOrigin?: number | null;
  } | null;
  githubRuntime?: {
    featuresEnabled?: boolean;
    pullRequest?: {
      number?: number;
      url: string;
      title: string;
      state: string;
      baseRefName: string;
      headRefName: string;
      isMerged: boolean;
      isDraft?: boolean;
      mergeable?: "MERGEABLE" | "CONFLICTING" | "UNKNOWN";
      checks?: {
        name: string;
        status: "success" | "failure" | "pending" | "skipped" | "cancelled";
        url: string | null;
        workflow?: string;
        duration?: string;
      }[];
      checksStatus?: "none" | "pending" | "success" | "failure";
      reviewDecision?: "approved" | "changes_requested" | "pending" | null;
      repoOwner?: string;
      repoName?: string;
      github?: unknown;
    } | null;
    error?: { message: string } | null;
    refreshedAt?: string | null;
  } | null;
  forge?: string;
  project?: PaseoProjectPlacement;
}

export interface PaseoWorkspaceListOptions {
  filter?: { query?: string; projectId?: string; idPrefix?: string };
  sort?: { key: "status_priority" | "activity_at" | "name" | "project_id"; direction: "asc" | "desc" }[];
  /** `limit` is 1–200. */
  page?: { limit: number; cursor?: string };
  subscribe?: PaseoSubscribeOption;
  requestId?: string;
}

export interface PaseoWorkspaceListResult {
  subscription?: OwnedSubscription<PaseoWorkspaceListResult>;
  requestId: string;
  subscriptionId?: string | null;
  entries: PaseoWorkspace[];
  pageInfo: PaseoPageInfo;
}

export interface PaseoWorkspaceOpenOptions {
  cwd: string;
  requestId?: string;
}

export interface PaseoChangeRequestCheckoutSource {
  kind: "change_request";
  forge?: string;
  number: number;
  projectPath?: string;
}

/** What a new workspace is backed by: an existing directory or a new worktree. */
export type PaseoWorkspaceCreateSource =
  | { kind: "directory"; path: string; projectId?: string }
  | {
      kind: "worktree";
      /** A directory of the project the worktree is cut from. */
      cwd?: string;
      projectId?: string;
      action?: "branch-off" | "checkout";
      /** The branch to check out, or the base ref to branch off. */
      refName?: string;
      baseBranch?: string;
      /** The new branch for `branch-off`. */
      branchName?: string;
      checkoutSource?: PaseoChangeRequestCheckoutSource;
      /** Legacy; prefer `checkoutSource`. */
      githubPrNumber?: number;
      worktreeSlug?: string;
    };

export interface PaseoWorkspaceCreateOptions {
  /** Matches `/^wks_[a-f0-9]{16}$/`. */
  workspaceId?: string;
  idempotencyKey?: string;
  title?: string;
  /** Context for generating the workspace's name and branch. */
  firstAgentContext?: { prompt?: string; attachments?: unknown[] };
  source: PaseoWorkspaceCreateSource;
  requestId?: string;
  /** An agent to start in the new workspace. */
  agent?: Omit<PaseoAgentCreateOptions, "worktree" | "git" | "onEvent" | "idempotencyKey" | "requestId">;
  onEvent?: (snapshot: PaseoCreationSnapshot) => void;
}

export interface PaseoWorkspaceArchiveResult {
  requestId: string;
  workspaceId: string;
  archivedAt: string | null;
  error: string | null;
}

export type PaseoWorkspaceUpdate =
  | { kind: "upsert"; workspace: PaseoWorkspace }
  | { kind: "remove"; id: string; emptyProject?: PaseoProject; removedProjectId?: string };

export type PaseoWorkspaceUpdateHandler = (update: PaseoWorkspaceUpdate) => void;

/** A workspace label from the catalog. */
export interface PaseoWorkspaceLabel {
  name: string;
  color: string;
}

export interface PaseoWorkspaceLabelAssignmentResult {
  label: PaseoWorkspaceLabel;
  /** Every label on the workspace after the change. */
  labels: string[];
}

export interface PaseoWorkspaceLabelActions {
  list(options?: { requestId?: string }): Promise<unknown>;
}

export interface PaseoWorkspaceActions {
  list(options: PaseoWorkspaceListOptions & { subscribe: PaseoSubscribeOption }): Promise<
    PaseoWorkspaceListResult & { subscriptionId: string; subscription: OwnedSubscription<PaseoWorkspaceListResult> }
  >;
  list(options?: PaseoWorkspaceListOptions): Promise<PaseoWorkspaceListResult>;
  /** A local handle; makes no request. */
  ref(workspace: string | PaseoWorkspace): PaseoWorkspaceHandle;
  open(input: string | PaseoWorkspaceOpenOptions, requestId?: string): Promise<PaseoWorkspaceHandle>;
  create(options: PaseoWorkspaceCreateOptions): Promise<PaseoWorkspaceHandle>;
  archive(workspace: string | PaseoWorkspaceHandle, requestId?: string): Promise<PaseoWorkspaceArchiveResult>;
  /** Local listener for workspace updates; the returned function removes it. */
  subscribe(handler: PaseoWorkspaceUpdateHandler): () => void;
  readonly labels: PaseoWorkspaceLabelActions;
}

export interface PaseoWorkspaceHandle {
  readonly id: string;
  readonly projectId: string | null;
  readonly directory: string | null;
  readonly name: string | null;
  readonly status: PaseoWorkspace["status"] | null;
  readonly agents: { create(options: PaseoWorkspaceAgentCreateOptions): Promise<PaseoAgentHandle> };
  readonly terminals: PaseoWorkspaceTerminalActions;
  current(): PaseoWorkspace | null;
  refresh(options?: { requestId?: string }): Promise<PaseoWorkspace | null>;
  setTitle(title: string | null, requestId?: string): Promise<{ title: string | null }>;
  /** Assigns or removes a label; a new name joins the catalog with the given colour. */
  setLabel(label: PaseoWorkspaceLabel, assigned: boolean, requestId?: string): Promise<PaseoWorkspaceLabelAssignmentResult>;
  archive(requestId?: string): Promise<PaseoWorkspaceArchiveResult>;
  subscribe(handler: (update: PaseoWorkspaceUpdate) => void): () => void;
}

// Terminals, providers, config.

export interface PaseoWorkspaceTerminalActions {
  create(options?: Record<string, unknown>): Promise<unknown>;
  list(options?: Record<string, unknown>): Promise<unknown>;
}

export interface PaseoTerminalActions {
  [member: string]: (...args: any[]) => unknown;
}

export interface PaseoProviderListOptions {
  cwd?: string;
  requestId?: string;
}

export interface PaseoProviderRefreshOptions {
  cwd?: string;
  providers?: string[];
  requestId?: string;
}

export interface PaseoProviderWaitOptions extends PaseoProviderListOptions {
  timeoutMs?: number;
}

export interface PaseoProviderFeaturesInput {
  /** `"provider/model"`. */
  provider: string;
  cwd: string;
  modeId?: string;
  thinkingOptionId?: string;
  featureValues?: Record<string, unknown>;
}

// Provider results: the payloads of the daemon's responses (messages.ts:
// `ListProviderModelsResponseMessageSchema` and its neighbours), as the SDK returns them.

/** `listModels`: `error` is set instead of rejecting. */
export interface PaseoProviderModelsResult {
  provider: string;
  models?: AgentModelDefinition[];
  error?: string | null;
  fetchedAt: string;
  requestId: string;
}

/** `listModes`: `error` is set instead of rejecting. */
export interface PaseoProviderModesResult {
  provider: string;
  modes?: AgentMode[];
  error?: string | null;
  fetchedAt: string;
  requestId: string;
}

/** `listFeatures`: `error` is set instead of rejecting. */
export interface PaseoProviderFeaturesResult {
  provider: string;
  features?: AgentFeature[];
  error?: string | null;
  fetchedAt: string;
  requestId: string;
}

export interface PaseoProviderAvailability {
  provider: string;
  available: boolean;
  error?: string | null;
}

/** `listAvailable`. */
export interface PaseoProviderAvailabilityResult {
  providers: PaseoProviderAvailability[];
  error?: string | null;
  fetchedAt: string;
  requestId: string;
}

/** A model of the compact snapshot encoding: its thinking options live in `thinkingSets`. */
export type PaseoCompactProviderSnapshotModel = Omit<AgentModelDefinition, "provider" | "thinkingOptions"> & {
  /** An index into `thinkingSets`. */
  thinkingSet?: number;
};

export type PaseoCompactProviderSnapshotEntry = Omit<ProviderSnapshotEntry, "models"> & {
  models?: PaseoCompactProviderSnapshotModel[];
};

/** Provider catalogs with shared thinking sets (`CompactProviderSnapshotSchema`). */
export interface PaseoCompactProviderSnapshot {
  entries: PaseoCompactProviderSnapshotEntry[];
  thinkingSets: { options: AgentSelectOption[]; defaultOptionId?: string }[];
}

/** `snapshot` and `waitForReady` (`GetProvidersSnapshotResponseMessageSchema`'s payload). */
export interface PaseoProviderSnapshotResult {
  cwd?: string;
  entries: ProviderSnapshotEntry[];
  compactSnapshot?: PaseoCompactProviderSnapshot;
  snapshotHash?: string;
  notModified?: boolean;
  generatedAt: string;
  requestId: string;
}

/** What `subscribe` delivers (`providers_snapshot_update`'s payload). */
export interface PaseoProviderSnapshotUpdate {
  cwd?: string;
  entries: ProviderSnapshotEntry[];
  compactSnapshot?: PaseoCompactProviderSnapshot;
  snapshotHash?: string;
  generatedAt: string;
}

/** `refresh`: the daemon acknowledges; updates arrive through `subscribe`. */
export interface PaseoProviderRefreshResult {
  requestId: string;
  acknowledged: boolean;
}

export interface PaseoProviderDiagnosticResult {
  provider: string;
  diagnostic: string;
  requestId: string;
}

export type PaseoProviderUsageTone = "default" | "ok" | "warning" | "danger";
export type PaseoProviderUsageStatus = "available" | "unavailable" | "error";

/** A rate-limit window of a provider account. */
export interface PaseoProviderUsageWindow {
  id: string;
  label: string;
  usedPct?: number | null;
  remainingPct?: number | null;
  resetsAt?: string | null;
  runsOutAt?: string | null;
  shortfallPct?: number | null;
  tone?: PaseoProviderUsageTone;
}

export interface PaseoProviderUsageBalance {
  id: string;
  label: string;
  used?: number | null;
  remaining?: number | null;
  limit?: number | null;
  unit: "usd" | "credits" | "requests" | "tokens";
  resetsAt?: string | null;
  tone?: PaseoProviderUsageTone;
}

export interface PaseoProviderUsageDetail {
  id: string;
  label: string;
  value: string;
  tone?: PaseoProviderUsageTone;
}

/** One provider's usage (`ProviderUsageSchema`). */
export interface PaseoProviderUsage {
  providerId: string;
  displayName: string;
  status: PaseoProviderUsageStatus;
  planLabel: string | null;
  sourceLabel?: string | null;
  fetchedAt?: string | null;
  nextRefreshAt?: string | null;
  windows: PaseoProviderUsageWindow[];
  balances?: PaseoProviderUsageBalance[];
  details?: PaseoProviderUsageDetail[];
  error?: string | null;
}

/** `listUsage`. */
export interface PaseoProviderUsageResult {
  requestId: string;
  fetchedAt: string;
  providers: PaseoProviderUsage[];
}

export interface PaseoProviderUsageOptions {
  requestId?: string;
}

export interface PaseoProviderActions {
  listModels(provider: string, options?: PaseoProviderListOptions): Promise<PaseoProviderModelsResult>;
  listModes(provider: string, options?: PaseoProviderListOptions): Promise<PaseoProviderModesResult>;
  listFeatures(
    draftConfig: PaseoProviderFeaturesInput,
    options?: { requestId?: string },
  ): Promise<PaseoProviderFeaturesResult>;
  listAvailable(options?: { requestId?: string }): Promise<PaseoProviderAvailabilityResult>;
  snapshot(options?: PaseoProviderListOptions): Promise<PaseoProviderSnapshotResult>;
  /** Resolves after the daemon's lazy provider discovery has finished. */
  waitForReady(options?: PaseoProviderWaitOptions): Promise<PaseoProviderSnapshotResult>;
  refresh(options?: PaseoProviderRefreshOptions): Promise<PaseoProviderRefreshResult>;
  diagnostic(provider: string, options?: { requestId?: string }): Promise<PaseoProviderDiagnosticResult>;
  listUsage(options?: PaseoProviderUsageOptions): Promise<PaseoProviderUsageResult>;
  subscribe(handler: (update: PaseoProviderSnapshotUpdate) => void): () => void;
}

/** The daemon's editable config (`MutableDaemonConfig`); unknown keys pass through. */
export interface PaseoDaemonConfig {
  [key: string]: unknown;
  relay?: { enabled: boolean; [key: string]: unknown };
  mcp: { injectIntoAgents: boolean; [key: string]: unknown };
  browserTools: { enabled: boolean; [key: string]: unknown };
  providers: Record<string, { enabled?: boolean; additionalModels?: unknown[]; [key: string]: unknown }>;
  metadataGeneration: { providers: unknown[]; [key: string]: unknown };
  autoArchiveAfterMerge: boolean;
  enableTerminalAgentHooks: boolean;
  appendSystemPrompt: string;
  terminalProfiles?: unknown[];
  agentProfiles?: unknown[];
}

/** A partial config; `removeProviders` drops provider entries. */
export interface PaseoDaemonConfigPatch {
  [key: string]: unknown;
  relay?: { enabled?: boolean };
  mcp?: { injectIntoAgents?: boolean };
  browserTools?: { enabled?: boolean };
  providers?: Record<string, { enabled?: boolean; additionalModels?: unknown[]; [key: string]: unknown }>;
  removeProviders?: string[];
  metadataGeneration?: { providers?: unknown[] };
  autoArchiveAfterMerge?: boolean;
  enableTerminalAgentHooks?: boolean;
  appendSystemPrompt?: string;
  terminalProfiles?: unknown[];
  agentProfiles?: unknown[];
}

export interface PaseoConfigActions {
  get(requestId?: string): Promise<{ requestId: string; config: PaseoDaemonConfig }>;
  patch(config: PaseoDaemonConfigPatch, requestId?: string): Promise<{ requestId: string; config: PaseoDaemonConfig }>;
}

// A client of its own: `createPaseoClient` (packages/client/src/index.ts). A plugin bundles
// `@getpaseo/client` for this; the engine provides no such module at run time.

/** The client's connection to the daemon. */
export type ConnectionState =
  | { status: "idle" }
  | { status: "connecting"; attempt: number }
  | { status: "connected" }
  | { status: "disconnected"; reason?: string }
  | { status: "disposed" };

export interface PaseoLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The capabilities a client can advertise (`CLIENT_CAPS`, packages/protocol/src/client-capabilities.ts). */
export type PaseoClientCapability =
  | "selective_agent_timeline"
  | "reasoning_merge_enum"
  | "custom_mode_icons"
  | "terminal_reflowable_snapshot"
  | "terminal_cell_width"
  | "provider_subagents"
  | "project_updates"
  | "compact_provider_snapshots"
  | "timeline_replacement_invalidation"
  | "timeline_notifications"
  | "browser_host";

export interface PaseoClientConfig {
  /** `DaemonClientConfig["capabilities"]` (newer clients). */
  capabilities?: Partial<Record<PaseoClientCapability, unknown>>;
  /** The daemon's WebSocket URL. */
  url: string;
  /** Generated when omitted. */
  clientId?: string;
  appVersion?: string;
  runtimeGeneration?: number | null;
  password?: string;
  authHeader?: string;
  suppressSendErrors?: boolean;
  logger?: PaseoLogger;
  connectTimeoutMs?: number;
  e2ee?: { enabled?: boolean; daemonPublicKeyB64?: string };
  reconnect?: { enabled?: boolean; baseDelayMs?: number; maxDelayMs?: number };
  runtimeMetricsIntervalMs?: number;
  runtimeMetricsWindowMs?: number;
}

/** The SDK over a connection of its own; `close` disposes the API, then the connection. */
export interface PaseoClient extends PaseoApi {
  connect(): Promise<void>;
  close(): Promise<void>;
  ensureConnected(): void;
  getConnectionState(): ConnectionState;
}

/** A client of the daemon at `config.url`; call `connect()` before use. */
export declare function createPaseoClient(config: PaseoClientConfig): PaseoClient;
