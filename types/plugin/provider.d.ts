// `@getpaseo/plugin/server/provider`: provider protocol v1, what a plugin implements to run an
// agent provider (`server.registerProvider`). Hand-written to match js/plugin/provider.js (the
// values) and Paseo's SDK (the shapes); the daemon checks inputs and events against
// runtime/src/providers/protocol.json.
import type { ZodType } from "zod";
import type { JsonValue, ToolCallDetail } from "../protocol/agent-types";

// ---------------------------------------------------------------------------------------------
// Values

/** The protocol version this SDK speaks; `connect` is offered it in `request.versions`. */
export declare const PROVIDER_PROTOCOL_VERSION: 1;

/** Every capability a connection or session may negotiate, in the protocol's order. */
export declare const PROVIDER_CAPABILITIES: readonly [
  "prompt.message",
  "prompt.command",
  "prompt.image",
  "prompt.output_schema",
  "prompt.steer",
  "session.archive",
  "session.configure",
  "session.list",
  "session.persistence",
  "session.revert.both",
  "session.revert.conversation",
  "session.revert.files",
  "session.subsession",
  "session.unarchive",
  "permission",
  "permission.tool_policy",
  "timeline.plugin",
];

export type ProviderCapability = (typeof PROVIDER_CAPABILITIES)[number];

/** Whether `capability` is one of `PROVIDER_CAPABILITIES`. */
export declare function isProviderCapability(capability: string): capability is ProviderCapability;

/** The known capabilities in both lists: `offered`'s order, each once. */
export declare function negotiateProviderCapabilities(
  offered: readonly string[],
  supported: readonly string[],
): readonly ProviderCapability[];

/** The capabilities a connection (or session) must have negotiated to accept `input`. */
export declare function requiredProviderCapabilities(input: ProviderInput): readonly ProviderCapability[];

/** Throws `Provider does not support <capability>` for the first one `capabilities` lacks. */
export declare function requireProviderCapabilities(capabilities: readonly string[], input: ProviderInput): void;

/** Strict: `{ status, diagnostic? }`, the diagnostic at most 4096 characters. */
export declare const ProviderAvailabilitySchema: ZodType<ProviderAvailability>;

// ---------------------------------------------------------------------------------------------
// Registration and connection

/** What `server.registerProvider` takes. */
export interface ProviderRegistration {
  /** Matches `/^[a-z][a-z0-9._-]*$/`; may not be a built-in or configured provider's id. */
  id: string;
  label: string;
  description?: string;
  /** A self-contained SVG, relative to the plugin's folder, at most 64 KiB. */
  icon?: string;
  /**
   * Discovery (models, modes) is shared between calls with the same key. Put everything the
   * catalogue depends on into it: effective configuration, environment, binary version.
   */
  getCatalogCacheKey?(options: ProviderCatalogOptions): Promise<string | undefined>;
  /** Checks the native runtime without connecting. */
  checkAvailability?(options: ProviderCatalogOptions): Promise<ProviderAvailability>;
  /** Parses `providerOptions` strictly; its defaults and transforms give the value sessions see. */
  providerOptionsSchema?: ZodType;
  /** Opens a connection; it picks a version from `request.versions` and its capabilities. */
  connect(request: ProviderConnectRequest): Promise<ProviderConnection>;
}

/** The configuration discovery depends on. */
export interface ProviderCatalogConfiguration {
  providerOptions?: Readonly<Record<string, JsonValue>>;
  settings?: Readonly<Record<string, JsonValue>>;
}

/** Discovery for every workspace (`global`) or for one folder (`workspace`). */
export type ProviderCatalogOptions = ProviderCatalogConfiguration &
  (
    | { scope: "global"; force?: boolean }
    | { scope: "workspace"; cwd: string; force?: boolean }
  );

export interface ProviderAvailability {
  status: "missing" | "unrunnable" | "incompatible" | "available";
  diagnostic?: string;
}

/** What the daemon offers: the versions and capabilities it speaks. */
export interface ProviderConnectRequest {
  versions: readonly number[];
  capabilities: readonly string[];
}

/** One connection: inputs go in through `send`, events come back through `onEvent`. */
export interface ProviderConnection {
  /** One of the offered versions. */
  readonly version: number;
  /** A subset of the offered capabilities (`negotiateProviderCapabilities`). */
  readonly capabilities: readonly string[];
  /** Accepts an input; a rejection rejects the daemon's request. Answers arrive as events. */
  send(input: ProviderInput): Promise<void>;
  /** Subscribes to events; returns the unsubscribe. */
  onEvent(listener: (event: ProviderEvent) => void): () => void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Sessions: configuration and prompts

/** Provider-defined data to resume a session from, versioned by the provider. */
export interface ProviderPersistence {
  /** A non-negative integer. */
  version: number;
  data: JsonValue;
}

export type ProviderMcpServerConfig =
  | {
      type: "stdio";
      command: string;
      args?: string[];
      env?: Record<string, string>;
      alwaysLoad?: boolean;
    }
  | {
      type: "http" | "sse";
      url: string;
      headers?: Record<string, string>;
      alwaysLoad?: boolean;
    };

/** Tools that run without asking (requires `permission.tool_policy`). */
export interface ProviderToolPolicy {
  preapproved: Array<{ kind: "mcp"; server: string; tool: string }>;
}

export interface ProviderSessionConfig {
  cwd: string;
  env: Readonly<Record<string, string>>;
  systemPrompt?: string;
  mcpServers: Readonly<Record<string, ProviderMcpServerConfig>>;
  toolPolicy?: ProviderToolPolicy;
  /** At most 512 names of 1 to 256 characters. */
  deniedTools?: readonly string[];
  model?: string;
  mode?: string;
  thinkingOption?: string;
  settings: Readonly<Record<string, JsonValue>>;
  providerOptions?: Readonly<Record<string, JsonValue>>;
  title?: string;
  persist: boolean;
}

/** `session.configure`: `null` clears a choice, an absent field keeps it. */
export interface ProviderConfigChanges {
  model?: string | null;
  mode?: string | null;
  thinkingOption?: string | null;
  settings?: Readonly<Record<string, JsonValue>>;
}

export interface ProviderPrompt {
  clientMessageId: string;
  /** `steer` (requires `prompt.steer`) adds to the running turn. */
  delivery: "auto" | "steer";
  input:
    | { type: "message"; content: ProviderContent[] }
    | { type: "command"; name: string; arguments: string };
  /** A JSON Schema the answer must follow (requires `prompt.output_schema`). */
  outputSchema?: JsonValue;
  clearPendingPermissions?: boolean;
}

// Prompt content: text, images (`prompt.image`) and the attachments Paseo's composer makes.

export interface ProviderTextContent {
  type: "text";
  text: string;
}

export interface ProviderImageContent {
  type: "image";
  /** Base64. */
  data: string;
  mimeType: string;
}

export interface ProviderForgeChangeRequestAttachment {
  type: "forge_change_request";
  mimeType: "application/paseo-forge-change-request";
  forge?: string;
  number: number;
  title: string;
  url: string;
  body?: string | null;
  projectPath?: string;
  baseRefName?: string | null;
  headRefName?: string | null;
}

export interface ProviderForgeIssueAttachment {
  type: "forge_issue";
  mimeType: "application/paseo-forge-issue";
  forge?: string;
  number: number;
  title: string;
  url: string;
  body?: string | null;
  projectPath?: string;
}

export interface ProviderGitHubPrAttachment {
  type: "github_pr";
  mimeType: "application/github-pr";
  number: number;
  title: string;
  url: string;
  body?: string | null;
  baseRefName?: string | null;
  headRefName?: string | null;
}

export interface ProviderGitHubIssueAttachment {
  type: "github_issue";
  mimeType: "application/github-issue";
  number: number;
  title: string;
  url: string;
  body?: string | null;
}

/** Text from an attachment source; unlike plain text content it has a `mimeType`. */
export interface ProviderTextAttachment {
  type: "text";
  mimeType: "text/plain";
  contextKind?: string;
  title?: string | null;
  text: string;
  externalResource?: {
    provider: string;
    providerLabel: string;
    resourceType: string;
    id: string;
    identifier: string;
    title: string;
    url: string;
  };
}

export interface ProviderReviewContextLine {
  oldLineNumber: number | null;
  newLineNumber: number | null;
  type: "add" | "remove" | "context";
  content: string;
}

export interface ProviderReviewComment {
  filePath: string;
  side: "old" | "new";
  lineNumber: number;
  body: string;
  context: {
    hunkHeader: string;
    targetLine: ProviderReviewContextLine;
    lines: ProviderReviewContextLine[];
  };
}

export interface ProviderReviewAttachment {
  type: "review";
  mimeType: "application/paseo-review";
  cwd: string;
  mode: "uncommitted" | "base";
  baseRef?: string | null;
  comments: ProviderReviewComment[];
}

export interface ProviderUploadedFileAttachment {
  type: "uploaded_file";
  id: string;
  fileName: string;
  mimeType: string;
  size: number;
  path: string;
}

export type ProviderContent =
  | ProviderTextContent
  | ProviderImageContent
  | ProviderForgeChangeRequestAttachment
  | ProviderForgeIssueAttachment
  | ProviderGitHubPrAttachment
  | ProviderGitHubIssueAttachment
  | ProviderTextAttachment
  | ProviderReviewAttachment
  | ProviderUploadedFileAttachment;

// ---------------------------------------------------------------------------------------------
// Inputs: what the daemon sends a connection

export type ProviderInput =
  | ({ type: "catalog"; requestId: string; cwd?: string } & ProviderCatalogConfiguration)
  | ({
      /** Requires `session.list`. */
      type: "sessions";
      requestId: string;
      query?: string;
      cwd?: string;
      limit?: number;
    } & ProviderCatalogConfiguration)
  | {
      type: "session.open";
      requestId: string;
      sessionId: string;
      config: ProviderSessionConfig;
      /** Resume from here (requires `session.persistence`). */
      persistence?: ProviderPersistence;
      history: "replay" | "skip";
    }
  | { type: "session.prompt"; sessionId: string; prompt: ProviderPrompt }
  | { type: "session.interrupt"; requestId: string; sessionId: string }
  | {
      /** Requires `permission`. */
      type: "session.permission";
      sessionId: string;
      permissionId: string;
      response: ProviderPermissionResponse;
    }
  | { type: "session.configure"; requestId: string; sessionId: string; changes: ProviderConfigChanges }
  | {
      /** Requires `session.revert.<scope>`. */
      type: "session.revert";
      requestId: string;
      sessionId: string;
      /** A timeline item's `revertToken`. */
      token: JsonValue;
      scope: "conversation" | "files" | "both";
    }
  | { type: "session.archive"; requestId: string; persistence: ProviderPersistence }
  | { type: "session.unarchive"; requestId: string; persistence: ProviderPersistence }
  | { type: "session.close"; requestId: string; sessionId: string };

// ---------------------------------------------------------------------------------------------
// Catalogue and session state

export interface ProviderThinkingOption {
  id: string;
  label: string;
  description?: string;
  isDefault?: boolean;
  metadata?: Readonly<Record<string, JsonValue>>;
}

export interface ProviderModel {
  id: string;
  aliases?: string[];
  isSelectable?: boolean;
  label: string;
  description?: string;
  isDefault?: boolean;
  metadata?: Readonly<Record<string, JsonValue>>;
  contextWindowMaxTokens?: number;
  thinkingOptions?: ProviderThinkingOption[];
  defaultThinkingOptionId?: string;
}

export interface ProviderMode {
  id: string;
  label: string;
  description?: string;
  icon?: string;
  colorTier?: string;
  /** The agent runs without asking for permissions. */
  isUnattended?: boolean;
}

export type ProviderSetting =
  | { type: "toggle"; id: string; label: string; description?: string; value: boolean }
  | {
      type: "select";
      id: string;
      label: string;
      description?: string;
      value: string | null;
      options: ReadonlyArray<{ label: string; value: string }>;
    };

/** A session's current choices and what it can be configured to. */
export interface ProviderConfigState {
  model?: string;
  mode?: string;
  thinkingOption?: string;
  models: readonly ProviderModel[];
  modes: readonly ProviderMode[];
  thinkingOptions: readonly ProviderThinkingOption[];
  settings: readonly ProviderSetting[];
}

/** The answer to a `catalog` input. */
export interface ProviderCatalog {
  models: readonly ProviderModel[];
  modes: readonly ProviderMode[];
  thinkingOptions?: readonly ProviderThinkingOption[];
  defaultModel?: string;
  defaultMode?: string;
  defaultThinkingOption?: string;
}

/** One stored session, in the answer to a `sessions` input. */
export interface ProviderSessionSummary {
  persistence: ProviderPersistence;
  cwd: string;
  title?: string;
  description?: string;
  updatedAt?: string;
  /** At most 160 characters. */
  firstPromptPreview?: string;
  /** At most 160 characters. */
  lastPromptPreview?: string;
}

/** A slash command the session accepts (`prompt.command`). */
export interface ProviderCommand {
  name: string;
  description: string;
  argumentHint?: string;
}

export interface ProviderError {
  message: string;
  code?: string;
  diagnostic?: string;
}

export interface ProviderNotice {
  id: string;
  severity: "info" | "warning" | "error";
  title: string;
  description?: string;
  dismissed?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Permissions

export interface ProviderPermissionAction {
  id: string;
  label: string;
  behavior: "allow" | "deny";
  variant?: "primary" | "secondary" | "danger";
  intent?: "implement" | "implement_resume" | "dismiss";
}

export interface ProviderPermissionRequest {
  id: string;
  name: string;
  kind: "tool" | "plan" | "question" | "mode" | "other";
  title?: string;
  description?: string;
  input?: Readonly<Record<string, JsonValue>>;
  detail?: ProviderToolCallDetail;
  suggestions?: Array<Record<string, JsonValue>>;
  /** The buttons; without them the client offers allow and deny. */
  actions?: ProviderPermissionAction[];
  metadata?: Readonly<Record<string, JsonValue>>;
}

export type ProviderPermissionResponse =
  | {
      behavior: "allow";
      selectedActionId?: string;
      updatedInput?: Record<string, JsonValue>;
      updatedPermissions?: Array<Record<string, JsonValue>>;
    }
  | {
      behavior: "deny";
      selectedActionId?: string;
      message?: string;
      /** Also stop the turn. */
      interrupt?: boolean;
    };

// ---------------------------------------------------------------------------------------------
// Timeline

export interface ProviderUsage {
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  totalCostUsd?: number;
  contextWindowMaxTokens?: number;
  contextWindowUsedTokens?: number;
}

/** How a tool call is shown, by kind: the same details as the agent timeline's. */
export type ProviderToolCallDetail = ToolCallDetail;

/** What every timeline item has. */
export interface ProviderTimelineItemBase {
  id: string;
  /** What a `session.revert` input passes back to revert to this item. */
  revertToken?: JsonValue;
}

export type ProviderToolCallItem = ProviderTimelineItemBase & {
  type: "tool_call";
  callId: string;
  name: string;
  detail: ProviderToolCallDetail;
  metadata?: Readonly<Record<string, JsonValue>>;
} & (
    | { status: "running" | "completed" | "canceled"; error: null }
    | { status: "failed"; error: JsonValue }
  );

export type ProviderTimelineItem =
  | (ProviderTimelineItemBase & { type: "user_message"; text: string; messageId?: string; clientMessageId?: string })
  | (ProviderTimelineItemBase & { type: "assistant_message"; text: string; messageId?: string })
  | (ProviderTimelineItemBase & { type: "reasoning"; text: string })
  | ProviderToolCallItem
  | (ProviderTimelineItemBase & {
      type: "todo";
      items: Array<{
        text: string;
        completed: boolean;
        id?: string;
        status?: "pending" | "in_progress" | "completed";
        activeForm?: string;
      }>;
    })
  | (ProviderTimelineItemBase & { type: "error"; message: string })
  | (ProviderTimelineItemBase & { type: "notification"; level: "info" | "warning" | "error"; message: string })
  | (ProviderTimelineItemBase & {
      type: "compaction";
      status: "loading" | "completed";
      trigger?: "auto" | "manual";
      preTokens?: number;
    })
  | (ProviderTimelineItemBase & {
      /** Requires `timeline.plugin`; `pluginId` must be this plugin's. */
      type: "plugin";
      pluginId: string;
      kind: string;
      version: number;
      data: JsonValue;
    });

// ---------------------------------------------------------------------------------------------
// Events: what a connection sends the daemon

export type ProviderPromptResult =
  | { type: "turn"; turnId: string }
  | { type: "steer"; turnId: string }
  | { type: "completed" }
  | { type: "failed"; error: ProviderError };

export type ProviderEvent =
  | { type: "catalog"; requestId: string; catalog: ProviderCatalog }
  | { type: "sessions"; requestId: string; sessions: ProviderSessionSummary[] }
  | { type: "request.completed"; requestId: string }
  | { type: "request.failed"; requestId: string; error: ProviderError }
  | {
      type: "session.opened";
      requestId?: string;
      sessionId: string;
      /** Requires `session.subsession` on the parent. */
      parentSessionId?: string;
      /** A subset of the connection's capabilities. */
      capabilities: readonly string[];
      restoration: "core" | "parent";
      persistence?: ProviderPersistence;
      title?: string;
      description?: string;
      cwd: string;
    }
  | { type: "session.ready"; requestId?: string; sessionId: string }
  | { type: "session.closed"; sessionId: string; error?: ProviderError }
  | { type: "session.runtime_failed"; sessionId: string; error: ProviderError }
  | { type: "session.persistence"; sessionId: string; persistence: ProviderPersistence }
  | { type: "session.prompt_result"; sessionId: string; clientMessageId: string; result: ProviderPromptResult }
  | {
      type: "session.turn";
      sessionId: string;
      turnId: string;
      state: "started" | "completed" | "failed" | "canceled";
      error?: ProviderError;
    }
  | { type: "session.usage"; sessionId: string; turnId?: string; usage: ProviderUsage }
  | { type: "session.config"; sessionId: string; config: ProviderConfigState }
  | { type: "session.commands"; sessionId: string; commands: ProviderCommand[] }
  | { type: "session.permission"; sessionId: string; request: ProviderPermissionRequest }
  | { type: "session.permission_resolved"; sessionId: string; permissionId: string }
  | { type: "session.notice"; sessionId: string; notice: ProviderNotice }
  | { type: "timeline.item"; sessionId: string; item: ProviderTimelineItem; timestamp?: string };
