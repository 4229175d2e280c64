// `@getpaseo/plugin/server`: what `index.server.ts` works with. Hand-written to match
// js/plugin/server.js and js/runtime/host.js; every hook name and payload comes from
// ../hooks.generated.d.ts, which is generated from the engine's hook catalogue.
import type { ZodType, input as ZodInput, output as ZodOutput } from "zod";
import type {
  AgentTurnEndEvent,
  PluginBeforeRequests,
  PluginHookAgent,
  PluginHookName,
  PluginHookPayloads,
  PluginHookResults,
  PluginLifecycleEvents,
} from "../hooks.generated";
import type {
  PluginCleanup,
  PluginHandlerContext,
  PluginRpcContract,
  PluginSettings,
  SettingsDefinition,
} from "./index";
import type { PaseoApi } from "./paseo";
import type { ProviderRegistration } from "./provider";
import type { UsageSourceRegistration } from "./usage";

export type * from "../hooks.generated";
export type * from "./paseo";
export type * from "./provider";
export type { UsageSourceRegistration } from "./usage";
export { defineRpc, defineSettings } from "./index";
export type {
  DeepReadonly,
  PluginCleanup,
  PluginHandlerContext,
  PluginRpcContract,
  PluginSettings,
  PluginSettingsDecision,
  PluginSettingsErrorCode,
  PluginSettingsState,
  PluginSettingsUpdateResult,
  SettingsDefinition,
} from "./index";

export type PluginTurnOutcome = AgentTurnEndEvent["outcome"];

/** The second argument of every hook handler. */
export interface PluginHookContext {
  /** The SDK, connected to this daemon. */
  readonly paseo: PaseoApi;
  /** Aborted when the invocation times out (30 s) or the plugin stops; pass it on. */
  readonly signal: AbortSignal;
}

/**
 * The request `before("agent.session_open")` handlers get, as Paseo's SDK names it
 * (packages/plugin/src/server/lifecycle.ts). Here the request carries more
 * (`AgentOpenRequest`: title, labels, tools, mcpServers), so it is also a
 * `PluginSessionOpenRequest`; return the whole request, changed where the hook may edit it.
 */
export interface PluginSessionOpenRequest {
  agentId: string;
  workspaceId: string | null;
  provider: string;
  cwd: string;
  reason: "create" | "resume" | "refresh" | "import";
  purpose: "interactive" | "history";
  env: Record<string, string>;
}

/** A handler for `server.addHook(name, handler)`; it must be async. */
export type PluginHookHandler<Name extends PluginHookName> = (
  payload: PluginHookPayloads[Name],
  context: PluginHookContext,
) => Promise<PluginHookResults[Name]>;

/** Removes a registration; calling it again does nothing. */
export type PluginHookRemover = () => void;

export interface PluginLifecycleRegistration {
  /** Registers a handler for a hook (Paseo 0.14+). Unknown names throw. */
  addHook<Name extends PluginHookName>(name: Name, handler: PluginHookHandler<Name>): PluginHookRemover;
  /** @deprecated Use `addHook` with the new name; removed after 2027-04-30. */
  on<Name extends keyof PluginLifecycleEvents>(
    name: Name,
    handler: (event: PluginLifecycleEvents[Name], context: PluginHookContext) => void | Promise<void>,
  ): PluginHookRemover;
  /** @deprecated Use `addHook` with the new name; removed after 2027-04-30. */
  before<Name extends keyof PluginBeforeRequests>(
    name: Name,
    handler: (
      input: { request: PluginBeforeRequests[Name] },
      context: PluginHookContext,
    ) => PluginBeforeRequests[Name] | void | Promise<PluginBeforeRequests[Name] | void>,
  ): PluginHookRemover;
}

/** Host-only secrets; connected clients never receive them. Keys match `/^[a-z0-9][a-z0-9._-]*$/`. */
export interface PluginSecretStore {
  get(key: string): Promise<string | null>;
  has(key: string): Promise<boolean>;
  /** Sorted key names only. */
  keys(): Promise<string[]>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface PluginClientPresence {
  readonly deviceType: "web" | "mobile";
  readonly appVisible: boolean;
  readonly focusedAgentId: string | null;
  readonly lastActivityAt: string | null;
}

export interface PluginPresence {
  /** Whether a client reported recent user activity. */
  readonly userPresent: boolean;
  readonly clients: readonly PluginClientPresence[];
}

// ---------------------------------------------------------------------------------------------
// Forge server providers (`server.addForgeServerProvider`), as Paseo's forge.ts types them.

/** How the user signs in, e.g. `{ cli: "gh", command: "gh auth login", hostnameFlag: "--hostname" }`. */
export interface PluginForgeSignInCommand {
  cli: string;
  command: string;
  hostnameFlag?: string;
}

/** What the forge is called and how it numbers things. Text fields are non-empty. */
export interface PluginForgeDefinition {
  /** Matches `/^[a-z0-9][a-z0-9._-]*$/` (after trimming). */
  id: string;
  displayName: string;
  /** "PR", "MR", … */
  changeRequestAbbrev: string;
  /** "pull request", "merge request", … */
  changeRequestNoun: string;
  /** "#", "!", … */
  changeRequestNumberPrefix: string;
  issueNumberPrefix: string;
  /** `null` when there is no CLI sign-in (tokens, say). */
  signIn: PluginForgeSignInCommand | null;
  /** Hosts this forge serves; others can be claimed with `probeHost`. Unique, non-empty. */
  cloudHosts?: readonly string[];
}

export type ForgeSearchKind = "issue" | "change_request";
/** The search kinds, with the legacy GitHub spellings `normalizeForgeSearchKinds` maps. */
export type ForgeSearchRequestKind = ForgeSearchKind | "github-issue" | "github-pr" | "pr";

export type ForgeAuthState = "authenticated" | "unauthenticated" | "cli_missing" | "no_remote" | "error";

/** Forge-specific facts, tagged with the forge family they belong to. */
export type ForgeSpecificStatusFacts = { forge: string } & Record<string, unknown>;

/** Reads may be forced past the cache, with a reason. */
export type ForgeReadOptions = { force?: false; reason?: string } | { force: true; reason: string };

export interface PullRequestSummary {
  /** A positive integer. */
  number: number;
  title: string;
  url: string;
  state: string;
  body: string | null;
  projectPath?: string;
  baseRefName: string;
  headRefName: string;
  labels: string[];
  updatedAt: string;
}

export interface IssueSummary {
  number: number;
  title: string;
  url: string;
  state: string;
  body: string | null;
  projectPath?: string;
  labels: string[];
  updatedAt: string;
}

export interface PullRequestCheckoutRef {
  remoteName?: string;
  remoteUrl?: string;
  remoteRef: string;
}

/** What checking out a change request needs. */
export interface PullRequestCheckoutTarget {
  number: number;
  baseRefName: string;
  headRefName: string;
  checkoutRefs?: PullRequestCheckoutRef[];
  headOwnerLogin: string | null;
  preferredPushUrl?: string;
  headRepositorySshUrl: string | null;
  headRepositoryUrl: string | null;
  isCrossRepository: boolean;
}

export type PullRequestCheckStatus = "pending" | "success" | "failure" | "cancelled" | "skipped";

export interface PullRequestCheck {
  name: string;
  status: PullRequestCheckStatus;
  url: string | null;
  workflow?: string;
  duration?: string;
  checkRunId?: number;
  workflowRunId?: number;
  traits?: string[];
}

export type PullRequestChecksStatus = "none" | "pending" | "success" | "failure";
export type PullRequestReviewDecision = "approved" | "changes_requested" | "pending" | null;
export type PullRequestMergeable = "MERGEABLE" | "CONFLICTING" | "UNKNOWN";

/** The change request for a branch, with its checks and review state. */
export interface CurrentPullRequestStatus {
  number?: number;
  repoOwner?: string;
  repoName?: string;
  projectPath?: string;
  url: string;
  title: string;
  state: string;
  baseRefName: string;
  headRefName: string;
  isMerged: boolean;
  isDraft?: boolean;
  mergeable: PullRequestMergeable;
  checks: PullRequestCheck[];
  checksStatus: PullRequestChecksStatus;
  reviewDecision: PullRequestReviewDecision;
  forgeSpecific?: ForgeSpecificStatusFacts;
}

export type PullRequestTimelineReviewState = "approved" | "changes_requested" | "commented";

export interface PullRequestTimelineCommentLocation {
  path: string;
  line?: number;
  startLine?: number;
  threadId?: string;
  isResolved?: boolean;
  isOutdated?: boolean;
}

export interface PullRequestTimelineItemBase {
  id: string;
  author: string;
  authorUrl: string | null;
  avatarUrl: string | null;
  body: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  url: string;
}

export type PullRequestTimelineItem =
  | (PullRequestTimelineItemBase & { kind: "review"; reviewState: PullRequestTimelineReviewState })
  | (PullRequestTimelineItemBase & {
      kind: "comment";
      reviewId?: string;
      threadId?: string;
      threadIsResolved?: boolean;
      location?: PullRequestTimelineCommentLocation;
    });

export type PullRequestTimelineErrorKind = "not_found" | "forbidden" | "unknown";

export interface PullRequestTimelineError {
  kind: PullRequestTimelineErrorKind;
  message: string;
}

/** Reviews and comments of a change request. */
export interface PullRequestTimeline {
  prNumber: number;
  repoOwner: string;
  repoName: string;
  items: PullRequestTimelineItem[];
  truncated: boolean;
  error: PullRequestTimelineError | null;
}

export interface CheckAnnotation {
  path?: string;
  startLine?: number;
  endLine?: number;
  annotationLevel?: string;
  message?: string;
  title?: string;
  rawDetails?: string;
}

export interface CheckFailedJob {
  jobId: number;
  name: string;
  status?: string | null;
  conclusion?: string | null;
  url?: string | null;
  completedAt?: string;
  logTail?: string;
  logTruncated?: boolean;
}

export type PipelineJobStatus =
  | "success"
  | "failed"
  | "running"
  | "pending"
  | "canceled"
  | "skipped"
  | "manual"
  | "created"
  | "unknown";

export interface PipelineJob {
  id: number;
  name: string;
  stage: string;
  status: PipelineJobStatus;
  rawStatus: string;
  url: string | null;
  allowFailure: boolean;
  durationSeconds: number | null;
}

export interface PipelineStage {
  name: string;
  status: PipelineJobStatus;
  jobs: PipelineJob[];
}

export interface PipelineDetails {
  id: number;
  status: PipelineJobStatus;
  rawStatus: string;
  url: string | null;
  ref: string | null;
  sha: string | null;
  stages: PipelineStage[];
}

/** One CI check in detail: output, annotations, failed jobs (and a pipeline, on GitLab-like forges). */
export interface CheckDetails {
  checkRunId: number;
  workflowRunId?: number | null;
  name: string;
  status?: string | null;
  conclusion?: string | null;
  url?: string | null;
  detailsUrl?: string | null;
  output?: { title?: string | null; summary?: string | null; text?: string | null } | null;
  annotations: CheckAnnotation[];
  failedJobs: CheckFailedJob[];
  truncated: boolean;
  pipeline?: PipelineDetails | null;
}

export interface SearchResultItem {
  kind: ForgeSearchKind;
  forge?: string;
  number: number;
  title: string;
  url: string;
  state: string;
  body: string | null;
  labels: string[];
  projectPath?: string;
  baseRefName?: string | null;
  headRefName?: string | null;
  updatedAt?: string;
}

export interface SearchResult {
  items: SearchResultItem[];
  featuresEnabled: boolean;
  authState: ForgeAuthState;
  githubFeaturesEnabled?: boolean;
}

export interface PullRequestCreateResult {
  url: string;
  number: number;
}

export type PluginForgeMergeMethod = "merge" | "squash" | "rebase";
export type PullRequestMergeMethod = PluginForgeMergeMethod;

/** What the client last saw of the change request, passed to the merge commands. */
export interface PullRequestCommandStatus {
  mergeable?: PullRequestMergeable;
  forgeSpecific?: ForgeSpecificStatusFacts;
}

export interface PullRequestMergeResult {
  success: true;
}

export interface PullRequestAutoMergeResult {
  success: true;
}

export type ListPullRequestsOptions = { cwd: string; query?: string; limit?: number } & ForgeReadOptions;
export type ListIssuesOptions = { cwd: string; query?: string; limit?: number } & ForgeReadOptions;
export type GetPullRequestOptions = { cwd: string; number: number } & ForgeReadOptions;
export type GetCurrentPullRequestStatusOptions = {
  cwd: string;
  headRef: string;
  headSha?: string;
  headRepositoryOwner?: string;
} & ForgeReadOptions;
export type GetPullRequestTimelineOptions = {
  cwd: string;
  prNumber: number;
  repoOwner: string;
  repoName: string;
} & ForgeReadOptions;
export type GetCheckDetailsOptions = {
  cwd: string;
  repoOwner?: string;
  repoName?: string;
  checkRunId?: number;
  workflowRunId?: number;
  changeRequestNumber?: number;
} & ForgeReadOptions;
export type SearchIssuesAndPrsOptions = {
  cwd: string;
  query: string;
  limit?: number;
  kinds?: ForgeSearchRequestKind[];
} & ForgeReadOptions;
export type IsAuthenticatedOptions = { cwd: string } & ForgeReadOptions;

export interface CreatePullRequestOptions {
  cwd: string;
  title: string;
  head: string;
  base: string;
  body?: string;
}

export interface MergePullRequestOptions {
  cwd: string;
  prNumber: number;
  mergeMethod: PullRequestMergeMethod;
  status?: PullRequestCommandStatus | null;
}

export interface EnablePullRequestAutoMergeOptions {
  cwd: string;
  prNumber: number;
  mergeMethod: PullRequestMergeMethod;
  status?: PullRequestCommandStatus | null;
}

export interface DisablePullRequestAutoMergeOptions {
  cwd: string;
  prNumber: number;
  status?: PullRequestCommandStatus | null;
}

/**
 * The forge's methods, one per entry of `PLUGIN_FORGE_SERVICE_METHODS`; all but
 * `defaultCheckoutRefs`, `buildPrLocalBranchName` and `dispose` are required. Results are
 * checked against these shapes by the daemon.
 */
export interface PluginForgeServerService {
  listPullRequests(options: ListPullRequestsOptions): Promise<PullRequestSummary[]>;
  listIssues(options: ListIssuesOptions): Promise<IssueSummary[]>;
  getPullRequest(options: GetPullRequestOptions): Promise<PullRequestSummary>;
  getPullRequestHeadRef(options: GetPullRequestOptions): Promise<string>;
  getPullRequestCheckoutTarget(options: GetPullRequestOptions): Promise<PullRequestCheckoutTarget>;
  defaultCheckoutRefs?(params: {
    changeRequestNumber: number;
    headRef: string;
  }): PullRequestCheckoutRef[] | Promise<PullRequestCheckoutRef[]>;
  buildPrLocalBranchName?(params: {
    headRef: string;
    checkoutTarget: PullRequestCheckoutTarget;
  }): string | undefined | Promise<string | undefined>;
  getCurrentPullRequestStatus(options: GetCurrentPullRequestStatusOptions): Promise<CurrentPullRequestStatus | null>;
  getPullRequestTimeline(options: GetPullRequestTimelineOptions): Promise<PullRequestTimeline>;
  getCheckDetails(options: GetCheckDetailsOptions): Promise<CheckDetails>;
  searchIssuesAndPrs(options: SearchIssuesAndPrsOptions): Promise<SearchResult>;
  createPullRequest(options: CreatePullRequestOptions): Promise<PullRequestCreateResult>;
  mergePullRequest(options: MergePullRequestOptions): Promise<PullRequestMergeResult>;
  enablePullRequestAutoMerge(options: EnablePullRequestAutoMergeOptions): Promise<PullRequestAutoMergeResult>;
  disablePullRequestAutoMerge(options: DisablePullRequestAutoMergeOptions): Promise<PullRequestAutoMergeResult>;
  isAuthenticated(options: IsAuthenticatedOptions): Promise<boolean>;
  /** Drops what is cached for `cwd`; calls for one `cwd` never overlap. */
  invalidate(options: { cwd: string }): void | Promise<void>;
  /** Called once, also when the plugin stops. */
  dispose?(): void | Promise<void>;
  /** `isAuthenticated` may throw (a thrown error is not "signed out"). */
  authProbeCanThrow?: boolean;
  /** A cross-repository change request can be checked out without `checkoutRefs`. */
  supportsCrossRepoCheckoutWithoutRefs?: boolean;
}

/** Paseo's other name for the forge service (packages/plugin/src/forge.ts). */
export type ForgeService = PluginForgeServerService;

/** A Git forge adapter: what `server.addForgeServerProvider` takes. */
export interface PluginForgeServerProviderContribution {
  definition: PluginForgeDefinition;
  service: PluginForgeServerService;
  /** Whether a host not in `cloudHosts` runs this forge (self-hosted instances). */
  probeHost?(host: string): boolean | Promise<boolean>;
}

/** Returns its argument; there for the types. */
export declare function defineForgeServerProvider<Definition extends PluginForgeServerProviderContribution>(
  definition: Definition,
): Definition;

export type PluginForgeServiceMethod =
  | "listPullRequests"
  | "listIssues"
  | "getPullRequest"
  | "getPullRequestHeadRef"
  | "getPullRequestCheckoutTarget"
  | "defaultCheckoutRefs"
  | "buildPrLocalBranchName"
  | "getCurrentPullRequestStatus"
  | "getPullRequestTimeline"
  | "getCheckDetails"
  | "searchIssuesAndPrs"
  | "createPullRequest"
  | "mergePullRequest"
  | "enablePullRequestAutoMerge"
  | "disablePullRequestAutoMerge"
  | "isAuthenticated"
  | "invalidate"
  | "dispose";

/** The forge service methods Paseo may call, in Paseo's order. */
export declare const PLUGIN_FORGE_SERVICE_METHODS: readonly [
  "listPullRequests",
  "listIssues",
  "getPullRequest",
  "getPullRequestHeadRef",
  "getPullRequestCheckoutTarget",
  "defaultCheckoutRefs",
  "buildPrLocalBranchName",
  "getCurrentPullRequestStatus",
  "getPullRequestTimeline",
  "getCheckDetails",
  "searchIssuesAndPrs",
  "createPullRequest",
  "mergePullRequest",
  "enablePullRequestAutoMerge",
  "disablePullRequestAutoMerge",
  "isAuthenticated",
  "invalidate",
  "dispose",
];

export type PluginForgeErrorKind = "missing-cli" | "auth-failure" | "command-error";

export interface ForgeCommandFailureParams {
  args: string[];
  cwd: string;
  exitCode: number | null;
  stderr: string;
}

/** The forge's CLI is not installed. */
export declare class ForgeCliMissingError extends Error {
  readonly kind: "missing-cli";
}

/** The forge refused the credentials; `stderr` is not enumerable. */
export declare class ForgeAuthenticationError extends Error {
  readonly kind: "auth-failure";
  readonly stderr: string;
  constructor(message: string, params: { stderr: string });
}

/** A forge CLI command (or request) failed; only `kind` and `exitCode` are enumerable. */
export declare class ForgeCommandError extends Error {
  readonly kind: "command-error";
  readonly brand: string;
  readonly binary: string;
  readonly args: string[];
  readonly cwd: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(label: { brand: string; binary: string; kind?: "cli" | "request" }, params: ForgeCommandFailureParams);
}

export declare function computeChecksStatus(checks: ReadonlyArray<{ status: string }>): PullRequestChecksStatus;
/** An empty search result for a forge that cannot search (signed out, no CLI, …). */
export declare function createUnavailableSearchResult<AuthState extends Exclude<ForgeAuthState, "authenticated">>(
  authState: AuthState,
): { items: []; featuresEnabled: false; authState: AuthState; githubFeaturesEnabled: false };
/**
 * `PullRequestCheck.duration` as Paseo formats it (packages/plugin/src/forge.ts): whole seconds,
 * `"45s"` or `"2m 5s"` (minutes also past an hour: `"123m 4s"`). `undefined` unless both times
 * parse (and the start is after the epoch) and the end is after the start.
 */
export declare function formatCheckDuration(startedAt?: string | null, completedAt?: string | null): string | undefined;
/** Milliseconds since the epoch, or 0 for a missing or unparsable time. */
export declare function parseOptionalTime(value: string | null | undefined): number;
/** Orders timeline items by `createdAt` (milliseconds), then by `id`. */
export declare function compareTimelineItems(left: { createdAt: number; id: string }, right: { createdAt: number; id: string }): number;
/** Maps the legacy GitHub kinds (`github-issue`, `github-pr`, `pr`) to `issue` / `change_request`. */
export declare function normalizeForgeSearchKinds(kinds: readonly ForgeSearchRequestKind[] | undefined): ForgeSearchKind[];

/** The object `contribute(server)` receives. */
export interface PluginServerContext extends PluginLifecycleRegistration {
  readonly paseo: PaseoApi;
  readonly secrets: PluginSecretStore;
  /** The daemon's current view of connected app clients. */
  presence(): Promise<PluginPresence>;
  registerSettings<Schema extends ZodType>(definition: SettingsDefinition<Schema>): PluginSettings<Schema>;
  /** Serves a plugin RPC method: the input is parsed with `contract.input`, the result with `contract.output`. */
  handle<Input extends ZodType, Output extends ZodType>(
    contract: PluginRpcContract<Input, Output>,
    handler: (input: ZodOutput<Input>, context: PluginHandlerContext) => ZodInput<Output> | Promise<ZodInput<Output>>,
  ): void;
  /** Runs an agent provider (provider protocol v1, `@getpaseo/plugin/server/provider`). */
  registerProvider(provider: ProviderRegistration): void;
  /** Adds a Git forge (`defineForgeServerProvider`). */
  addForgeServerProvider(contribution: PluginForgeServerProviderContribution): void;
  /** Adds a usage source (`@getpaseo/plugin/server/usage`). */
  registerUsageSource(source: UsageSourceRegistration): void;
}

/** The default export of `index.server.ts`: synchronous, returns the cleanup. */
export type PluginServerContribution = (server: PluginServerContext) => PluginCleanup;

/** What a tool's `execute` receives besides its input. */
export interface AgentToolContext {
  /** The agent calling the tool. */
  readonly agent: PluginHookAgent;
  /** The SDK, connected to this daemon. */
  readonly paseo: PaseoApi;
  /** Aborted when the call is cancelled or its transport closes; pass it to file and network calls. */
  readonly signal: AbortSignal;
}

/** What `execute` returns. `structuredContent` must be JSON-serialisable. */
export interface AgentToolResult {
  /** Model-visible text; without it Paseo formats `structuredContent`. */
  text?: string;
  structuredContent?: unknown;
  isError?: boolean;
}

/** What `defineAgentTool` takes. */
export interface AgentToolSpec<Input extends ZodType = ZodType> {
  /** Matches `/^[a-z][a-z0-9_]*$/`, at most 64 characters. */
  name: string;
  title?: string;
  description: string;
  /** Validated before `execute` runs; converted to the tool's JSON Schema. */
  input: Input;
  /** Runs in the plugin; a throw becomes `{ isError: true, text: message }`. Up to 10 minutes. */
  execute(input: ZodOutput<Input>, context: AgentToolContext): AgentToolResult | Promise<AgentToolResult>;
}

/** A tool to attach to agents by returning it in `agent.open.before`'s `request.tools`. */
export interface AgentToolDefinition<Input extends ZodType = ZodType> extends Readonly<AgentToolSpec<Input>> {}

/** Checks the tool (name, description, zod input, execute) and returns a frozen definition. */
export declare function defineAgentTool<Input extends ZodType>(tool: AgentToolSpec<Input>): AgentToolDefinition<Input>;
