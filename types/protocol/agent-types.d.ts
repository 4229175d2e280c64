// `@getpaseo/protocol/agent-types`, as far as plugins import it (type-only). The payload types the
// hook catalogue defines come from ../hooks.generated; the rest follow Paseo's
// packages/protocol/src/agent-types.ts and the zod schemas in packages/protocol/src/messages.ts.
export type { AgentSessionConfig, McpServerConfig, McpServers } from "../hooks.generated";

export type AgentProvider = string;

export interface AgentMetadata {
  [key: string]: unknown;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Provider-native settings (`config.options` in the SDK, `providerOptions` on the wire). */
export type ProviderOptions = Record<string, JsonValue>;

export interface McpToolRef {
  kind: "mcp";
  server: string;
  tool: string;
}

export interface ToolPolicy {
  preapproved: McpToolRef[];
}

/** An agent's lifecycle status (`AGENT_LIFECYCLE_STATUSES`). */
export type AgentLifecycleStatus = "initializing" | "idle" | "running" | "error" | "closed";

/** Token and cost figures a provider reports for a turn; every field is optional. */
export interface AgentUsage {
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  totalCostUsd?: number;
  contextWindowMaxTokens?: number;
  contextWindowUsedTokens?: number;
}

/** What the running provider session reports about itself. */
export interface AgentRuntimeInfo {
  provider: AgentProvider;
  sessionId: string | null;
  model?: string | null;
  thinkingOptionId?: string | null;
  modeId?: string | null;
  extra?: AgentMetadata;
}

export interface AgentMode {
  id: string;
  label: string;
  description?: string;
  icon?: string;
  colorTier?: string;
}

/** A provider's readiness in the providers snapshot. */
export type ProviderStatus = "ready" | "loading" | "error" | "unavailable";

/** A model a provider offers (`AgentModelDefinition`). */
export interface AgentModelDefinition {
  provider: AgentProvider;
  id: string;
  aliases?: string[];
  isSelectable?: boolean;
  label: string;
  description?: string;
  isDefault?: boolean;
  metadata?: AgentMetadata;
  contextWindowMaxTokens?: number;
  thinkingOptions?: AgentSelectOption[];
  defaultThinkingOptionId?: string;
}

/** One provider in the providers snapshot (`ProviderSnapshotEntry`). */
export interface ProviderSnapshotEntry {
  provider: AgentProvider;
  status: ProviderStatus;
  enabled: boolean;
  source?: "builtin" | "custom";
  error?: string;
  models?: AgentModelDefinition[];
  modes?: AgentMode[];
  fetchedAt?: string;
  label?: string;
  description?: string;
  defaultModeId?: string | null;
}

export interface AgentSelectOption {
  id: string;
  label: string;
  description?: string;
  isDefault?: boolean;
  metadata?: AgentMetadata;
}

export interface AgentFeatureToggle {
  type: "toggle";
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon?: string;
  value: boolean;
}

export interface AgentFeatureSelect {
  type: "select";
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  icon?: string;
  value: string | null;
  options: AgentSelectOption[];
}

export type AgentFeature = AgentFeatureToggle | AgentFeatureSelect;

export interface AgentCapabilityFlags {
  [capability: string]: boolean | undefined;
  supportsStreaming: boolean;
  supportsSessionPersistence: boolean;
  supportsSessionListing?: boolean;
  supportsDynamicModes: boolean;
  supportsMcpServers: boolean;
  supportsReasoningStream: boolean;
  supportsToolInvocations: boolean;
  supportsRewindConversation?: boolean;
  supportsRewindFiles?: boolean;
  supportsRewindBoth?: boolean;
}

export interface AgentPersistenceHandle {
  provider: AgentProvider;
  sessionId: string;
  /** Provider-specific handle (Codex thread id, Claude resume token, …). */
  nativeHandle?: string;
  metadata?: AgentMetadata;
}

export type ToolCallIconName =
  | "wrench"
  | "square_terminal"
  | "eye"
  | "pencil"
  | "search"
  | "bot"
  | "sparkles"
  | "brain"
  | "mic_vocal";

/** What a tool call did, by kind. */
export type ToolCallDetail =
  | { type: "shell"; command: string; cwd?: string; output?: string; exitCode?: number | null }
  | { type: "read"; filePath: string; content?: string; offset?: number; limit?: number }
  | { type: "edit"; filePath: string; oldString?: string; newString?: string; unifiedDiff?: string }
  | { type: "write"; filePath: string; content?: string }
  | {
      type: "search";
      query: string;
      toolName?: "search" | "grep" | "glob" | "web_search";
      content?: string;
      filePaths?: string[];
      webResults?: Array<{ title: string; url: string }>;
      annotations?: string[];
      numFiles?: number;
      numMatches?: number;
      durationMs?: number;
      durationSeconds?: number;
      truncated?: boolean;
      mode?: "content" | "files_with_matches" | "count";
    }
  | {
      type: "fetch";
      url: string;
      prompt?: string;
      result?: string;
      code?: number;
      codeText?: string;
      bytes?: number;
      durationMs?: number;
    }
  | {
      type: "worktree_setup";
      worktreePath: string;
      branchName: string;
      log: string;
      commands: Array<{
        index: number;
        command: string;
        cwd: string;
        log: string;
        status: "running" | "completed" | "failed";
        exitCode: number | null;
        durationMs?: number;
      }>;
      truncated?: boolean;
    }
  | {
      type: "sub_agent";
      subAgentType?: string;
      description?: string;
      childSessionId?: string;
      log: string;
      actions?: Array<{ index: number; toolName: string; summary?: string }>;
    }
  | { type: "plain_text"; label?: string; text?: string; icon?: ToolCallIconName }
  | { type: "plan"; text: string }
  | { type: "unknown"; input: unknown; output: unknown };

interface ToolCallBase {
  [key: string]: unknown;
  type: "tool_call";
  callId: string;
  name: string;
  detail: ToolCallDetail;
  metadata?: Record<string, unknown>;
}

/** A tool call row; `error` is set only when it failed. */
export type ToolCallTimelineItem =
  | (ToolCallBase & { status: "running"; error: null })
  | (ToolCallBase & { status: "completed"; error: null })
  | (ToolCallBase & { status: "failed"; error: unknown })
  | (ToolCallBase & { status: "canceled"; error: null });

export interface CompactionTimelineItem {
  [key: string]: unknown;
  type: "compaction";
  status: "loading" | "completed";
  trigger?: "auto" | "manual";
  preTokens?: number;
}

/** A row a plugin wrote with `timeline.append`; the daemon stamps `pluginId`. */
export interface PluginTimelineItem {
  type: "plugin";
  id: string;
  pluginId: string;
  kind: string;
  version: number;
  data: JsonValue;
}

export interface AgentTaskItem {
  text: string;
  completed: boolean;
  id?: string;
  status?: "pending" | "in_progress" | "completed";
  activeForm?: string;
}

/** One timeline row. */
export type AgentTimelineItem =
  | { type: "user_message"; text: string; messageId?: string; clientMessageId?: string }
  | { type: "assistant_message"; text: string; messageId?: string }
  | { type: "reasoning"; text: string }
  | ToolCallTimelineItem
  | { type: "todo"; items: AgentTaskItem[] }
  | { type: "error"; message: string }
  | { type: "notification"; level: "info" | "warning" | "error"; message: string }
  | CompactionTimelineItem
  | PluginTimelineItem;

export type AgentPermissionUpdate = AgentMetadata;

export type AgentPermissionRequestKind = "tool" | "plan" | "question" | "mode" | "other";

/** A choice the provider offers for a permission request (`AgentPermissionAction`). */
export interface AgentPermissionAction {
  id: string;
  label: string;
  behavior: "allow" | "deny";
  variant?: "primary" | "secondary" | "danger";
  intent?: "implement" | "implement_resume" | "dismiss";
}

/**
 * What a provider asks permission for, as Paseo's agent-types.ts declares it (and messages.ts's
 * `AgentPermissionRequestPayloadSchema` sends it). The `agent.permission.before` hook's
 * `request` (../hooks.generated) is the catalogued part of it and assignable to this type.
 */
export interface AgentPermissionRequest {
  id: string;
  provider: AgentProvider;
  name: string;
  kind: AgentPermissionRequestKind;
  title?: string;
  description?: string;
  input?: AgentMetadata;
  detail?: ToolCallDetail;
  suggestions?: AgentPermissionUpdate[];
  actions?: AgentPermissionAction[];
  metadata?: AgentMetadata;
}

/** How a permission request was answered (`agent.permission.after`'s `resolution` is one). */
export type AgentPermissionResponse =
  | {
      behavior: "allow";
      selectedActionId?: string;
      updatedInput?: AgentMetadata;
      updatedPermissions?: AgentPermissionUpdate[];
    }
  | { behavior: "deny"; selectedActionId?: string; message?: string; interrupt?: boolean };

/**
 * An event of a provider session's stream, as Paseo's agent-types.ts declares `AgentStreamEvent`
 * (what providers emit; the daemon forwards a subset as `AgentStreamEventPayload`, below).
 */
export type AgentStreamEvent =
  | { type: "thread_started"; sessionId: string; provider: AgentProvider }
  | { type: "turn_started"; provider: AgentProvider; turnId?: string }
  | { type: "turn_completed"; provider: AgentProvider; usage?: AgentUsage; turnId?: string }
  | {
      type: "usage_updated";
      provider: AgentProvider;
      usage: AgentUsage;
      turnId?: string;
      /** Output tokens of the running turn so far; cleared at every turn boundary. */
      activeTurnOutputTokens?: number;
    }
  | { type: "mode_changed"; provider: AgentProvider; currentModeId: string | null; availableModes: AgentMode[] }
  | { type: "model_changed"; provider: AgentProvider; runtimeInfo: AgentRuntimeInfo }
  | { type: "thinking_option_changed"; provider: AgentProvider; thinkingOptionId: string | null }
  | {
      type: "turn_failed";
      provider: AgentProvider;
      error: string;
      code?: string;
      diagnostic?: string;
      turnId?: string;
    }
  | { type: "turn_canceled"; provider: AgentProvider; reason: string; turnId?: string }
  | { type: "timeline"; item: AgentTimelineItem; provider: AgentProvider; turnId?: string; timestamp?: string }
  | { type: "permission_requested"; provider: AgentProvider; request: AgentPermissionRequest; turnId?: string }
  | {
      type: "permission_resolved";
      provider: AgentProvider;
      requestId: string;
      resolution: AgentPermissionResponse;
      turnId?: string;
    }
  | {
      type: "attention_required";
      provider: AgentProvider;
      reason: "finished" | "error" | "permission";
      timestamp: string;
    };

/** An event of an agent's stream (`agent_stream`'s `event`, as the daemon sends it). */
export type AgentStreamEventPayload =
  | { type: "thread_started"; sessionId: string; provider: AgentProvider }
  | { type: "turn_started"; provider: AgentProvider; turnId?: string }
  | { type: "turn_completed"; provider: AgentProvider; turnId?: string; usage?: AgentUsage }
  | {
      type: "turn_failed";
      provider: AgentProvider;
      turnId?: string;
      error: string;
      code?: string;
      diagnostic?: string;
    }
  | { type: "turn_canceled"; provider: AgentProvider; turnId?: string; reason: string }
  | { type: "timeline"; provider: AgentProvider; item: AgentTimelineItem }
  | { type: "permission_requested"; provider: AgentProvider; request: AgentPermissionRequest }
  | {
      type: "permission_resolved";
      provider: AgentProvider;
      requestId: string;
      resolution: AgentPermissionResponse;
    }
  | {
      type: "attention_required";
      provider: AgentProvider;
      reason: "finished" | "error" | "permission";
      timestamp: string;
      shouldNotify: boolean;
      notification?: {
        title: string;
        body: string;
        data: {
          serverId: string;
          workspaceId?: string;
          agentId: string;
          reason: "finished" | "error" | "permission";
        };
      };
    };
