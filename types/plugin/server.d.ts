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

export type * from "../hooks.generated";
export type * from "./paseo";
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

/** A provider a plugin runs (provider protocol v1). Typed loosely. */
export interface ProviderRegistration {
  /** Matches `/^[a-z][a-z0-9._-]*$/`. */
  id: string;
  label: string;
  description?: string;
  /** Path of an SVG inside the plugin folder, at most 64 KiB. */
  icon?: string;
  getCatalogCacheKey?(): string | Promise<string>;
  connect(request: { versions: number[]; capabilities: string[] }): ProviderConnection | Promise<ProviderConnection>;
}

export interface ProviderConnection {
  version: number;
  capabilities: string[];
  send(input: unknown): void | Promise<void>;
  onEvent(listener: (event: unknown) => void): () => void;
  close(): void | Promise<void>;
}

/** A Git forge adapter. Typed loosely: `service` holds the forge methods Paseo calls. */
export interface PluginForgeServerProviderContribution {
  definition: { id: string; displayName: string; [key: string]: unknown };
  service: { [method: string]: unknown };
  probeHost?: (host: string) => boolean | Promise<boolean>;
}

export declare function defineForgeServerProvider<Definition extends PluginForgeServerProviderContribution>(
  definition: Definition,
): Definition;

/** The forge service methods Paseo may call, in Paseo's order. */
export declare const PLUGIN_FORGE_SERVICE_METHODS: readonly string[];

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

export type PullRequestChecksStatus = "none" | "pending" | "success" | "failure";
export declare function computeChecksStatus(checks: ReadonlyArray<{ status: string }>): PullRequestChecksStatus;
export declare function createUnavailableSearchResult(authState: string): {
  items: [];
  featuresEnabled: false;
  authState: string;
  githubFeaturesEnabled: false;
};
/** Milliseconds since the epoch, or 0 for a missing or unparsable time. */
export declare function parseOptionalTime(value: string | null | undefined): number;
/** Orders timeline items by `createdAt` (milliseconds), then by `id`. */
export declare function compareTimelineItems(left: { createdAt: number; id: string }, right: { createdAt: number; id: string }): number;
/** Maps the legacy GitHub kinds (`github-issue`, `github-pr`, `pr`) to `issue` / `change_request`. */
export declare function normalizeForgeSearchKinds(kinds: readonly string[] | undefined): string[];

/** A usage source (Paseo 0.11). Typed loosely. */
export interface UsageSourceRegistration<Input extends ZodType = ZodType> {
  id: string;
  label: string;
  icon?: string;
  input: Input;
  discover?: (...args: any[]) => unknown;
  fetch: (input: ZodOutput<Input>, ...rest: any[]) => unknown;
  identify?: (...args: any[]) => unknown;
}

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
  registerProvider(provider: ProviderRegistration): void;
  addForgeServerProvider(contribution: PluginForgeServerProviderContribution): void;
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
