// Generated from runtime/src/hooks/catalogue.json by render_hooks_dts() in
// runtime/src/hooks/typescript.rs. Do not edit: regenerate with
// `PASEO_BLESS=1 cargo test --test types`.

import type { AgentToolDefinition } from "./plugin/server";
import type { AgentTimelineItem } from "./protocol/agent-types";

export interface AgentArchiveEvent {
  agent: PluginHookAgent;
  archivedAt: string;
}

export interface AgentCreateRequest {
  config: AgentSessionConfig;
  env?: EnvMap;
  initialPrompt?: string;
}

export interface AgentEvent {
  agent: PluginHookAgent;
}

export interface AgentOpenRequest {
  agentId: string;
  workspaceId: string | null;
  provider: string;
  cwd: string;
  title: string | null;
  labels: StringMap;
  tools: AgentToolDefinition[];
  mcpServers: McpServers;
  reason: "create" | "resume" | "refresh" | "import";
  purpose: "interactive" | "history";
  env: EnvMap;
}

export interface AgentPermissionRequest {
  id: string;
  provider: string;
  name: string;
  kind: "tool" | "plan" | "question" | "mode" | "other";
  description?: string;
  input?: Record<string, unknown>;
  title?: string;
}

export interface AgentPermissionRequestEvent {
  agent: PluginHookAgent;
  request: AgentPermissionRequest;
}

export interface AgentPermissionResolveEvent {
  agent: PluginHookAgent;
  requestId: string;
  resolution: { behavior: "allow" | "deny" };
}

/** Unknown keys inside config are stripped, not rejected (as zod's non-strict object does). */
export interface AgentSessionConfig {
  provider: string;
  cwd: string;
  featureValues?: Record<string, unknown>;
  internal?: boolean;
  mcpServers?: McpServers;
  modeId?: string;
  model?: string;
  providerOptions?: Record<string, unknown>;
  systemPrompt?: string;
  thinkingOptionId?: string;
  title?: Title;
  toolPolicy?: { preapproved: { kind: "mcp"; server: string; tool: string }[] };
}

/** The wire form of an agent tool. In plugin code `request.tools` holds `AgentToolDefinition`s (from `defineAgentTool`); the host sends their metadata. */
export interface AgentToolMetadata {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  title?: string;
}

export interface AgentTurnEndEvent {
  agent: PluginHookAgent;
  turnId: string | null;
  outcome:
    | { kind: "completed" }
    | { kind: "failed"; error: { message: string; code?: string } }
    | { kind: "canceled"; reason: string };
  timeline: readonly AgentTimelineItem[];
}

export interface AgentTurnStartEvent {
  agent: PluginHookAgent;
  turnId: string | null;
}

/** Environment overrides; each value at most 131,072 characters, Linux's limit for one environment string. */
export type EnvMap = Record<string, string>;

export type McpServerConfig =
  | {
      type: "stdio";
      command: string;
      args?: string[];
      env?: StringMap;
      alwaysLoad?: boolean;
    }
  | { type: "http" | "sse"; url: string; headers?: StringMap; alwaysLoad?: boolean };

export type McpServers = Record<string, McpServerConfig>;

export interface PluginHookAgent {
  id: string;
  workspaceId: string | null;
  parentAgentId: string | null;
  provider: string;
  cwd: string;
  title: string | null;
}

export interface PluginHookWorkspace {
  id: string;
  projectId: string;
  cwd: string;
  name: string | null;
  archivedAt: string | null;
}

export type StringMap = Record<string, string>;

/** A title saved with the agent or workspace: at most 1,024 characters. */
export type Title = string | null;

export interface WorkspaceCreateRequest {
  source: WorkspaceSource;
  firstAgentContext?: Record<string, unknown>;
  idempotencyKey?: string;
  title?: string;
}

export interface WorkspaceEvent {
  workspace: PluginHookWorkspace;
}

export type WorkspaceSource =
  | { kind: "directory"; path: string; projectId?: string }
  | {
      kind: "worktree";
      cwd: string;
      action: "branch-off" | "checkout";
      branchName?: string;
      refName?: string;
      githubPrNumber?: number;
      baseBranch?: string;
      worktreeSlug?: string;
      checkoutSource?: Record<string, unknown>;
      projectId?: string;
    };

export type WorktreeCreateRequest = {
  branch: string;
  slug: string;
  path: string;
  repoRoot: string;
  sourceCheckout: string;
  baseRef?: string;
  changeRequestNumber?: number;
  checkoutRefs?: { remoteRef: string; remoteName?: string }[];
  forge?: string;
  githubPrNumber?: number;
  headRef?: string;
  headRepository?: string;
  headRepositoryOwner?: string;
  pushRemoteUrl?: string;
  trackOriginHead?: boolean;
} & (
  | { kind: "branch-off"; baseRef: string }
  | { kind: "checkout-branch"; baseRef?: never }
  | {
      kind: "checkout-change-request";
      forge: string;
      changeRequestNumber: number;
      headRef: string;
    }
  | { kind: "checkout-github-pr"; githubPrNumber: number; headRef: string }
);

export interface WorktreeEvent {
  worktree: { path: string; branch: string; sourceCheckout: string };
}

/** What a handler registered with `server.addHook(name, handler)` receives, by hook name. */
export interface PluginHookPayloads {
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: the whole creation request. */
  "workspace.create.before": { request: WorkspaceCreateRequest };
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "workspace.create.after": WorkspaceEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "workspace.archive.after": WorkspaceEvent;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: creation options and target path (not repoRoot, sourceCheckout). */
  "worktree.create.before": { request: WorktreeCreateRequest };
  /** Paseo waits; a throw or timeout fails the operation. May edit: files in the worktree; a throw aborts creation. */
  "worktree.create.after": WorktreeEvent;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: saved config except cwd; env (first launch only). */
  "agent.create.before": { request: AgentCreateRequest };
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.create.after": AgentEvent;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: env, tools, mcpServers (this launch only). */
  "agent.open.before": { request: AgentOpenRequest };
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.close.after": AgentEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.archive.after": AgentArchiveEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.turn.before": AgentTurnStartEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.turn.after": AgentTurnEndEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.permission.before": AgentPermissionRequestEvent;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.permission.after": AgentPermissionResolveEvent;
}

/** What a handler may resolve to: a replacement request or `undefined` for request hooks. */
export interface PluginHookResults {
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: the whole creation request. */
  "workspace.create.before": WorkspaceCreateRequest | undefined | void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "workspace.create.after": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "workspace.archive.after": void;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: creation options and target path (not repoRoot, sourceCheckout). */
  "worktree.create.before": WorktreeCreateRequest | undefined | void;
  /** Paseo waits; a throw or timeout fails the operation. May edit: files in the worktree; a throw aborts creation. */
  "worktree.create.after": void;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: saved config except cwd; env (first launch only). */
  "agent.create.before": AgentCreateRequest | undefined | void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.create.after": void;
  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: env, tools, mcpServers (this launch only). */
  "agent.open.before": AgentOpenRequest | undefined | void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.close.after": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.archive.after": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.turn.before": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.turn.after": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.permission.before": void;
  /** Notification: Paseo does not wait; a throw is logged under the plugin. */
  "agent.permission.after": void;
}

export type PluginHookName = keyof PluginHookPayloads;

/** Older `server.on(name, handler)` names and the event each handler receives. */
export interface PluginLifecycleEvents {
  /** @deprecated Use `server.addHook("workspace.create.after", …)`; the old methods are removed after 2027-04-30. */
  "workspace.created": WorkspaceEvent;
  /** @deprecated Use `server.addHook("workspace.archive.after", …)`; the old methods are removed after 2027-04-30. */
  "workspace.archived": WorkspaceEvent;
  /** @deprecated Use `server.addHook("agent.create.after", …)`; the old methods are removed after 2027-04-30. */
  "agent.created": AgentEvent;
  /** @deprecated Use `server.addHook("agent.close.after", …)`; the old methods are removed after 2027-04-30. */
  "agent.closed": AgentEvent;
  /** @deprecated Use `server.addHook("agent.archive.after", …)`; the old methods are removed after 2027-04-30. */
  "agent.archived": AgentArchiveEvent;
  /** @deprecated Use `server.addHook("agent.turn.before", …)`; the old methods are removed after 2027-04-30. */
  "agent.turn_started": AgentTurnStartEvent;
  /** @deprecated Use `server.addHook("agent.turn.after", …)`; the old methods are removed after 2027-04-30. */
  "agent.turn_ended": AgentTurnEndEvent;
  /** @deprecated Use `server.addHook("agent.permission.before", …)`; the old methods are removed after 2027-04-30. */
  "agent.permission_requested": AgentPermissionRequestEvent;
  /** @deprecated Use `server.addHook("agent.permission.after", …)`; the old methods are removed after 2027-04-30. */
  "agent.permission_resolved": AgentPermissionResolveEvent;
}

/** Older `server.before(name, handler)` names and the request each handler receives (as `{ request }`). */
export interface PluginBeforeRequests {
  /** @deprecated Use `server.addHook("workspace.create.before", …)`; the old methods are removed after 2027-04-30. */
  "workspace.create": WorkspaceCreateRequest;
  /** @deprecated Use `server.addHook("agent.create.before", …)`; the old methods are removed after 2027-04-30. */
  "agent.create": AgentCreateRequest;
  /** @deprecated Use `server.addHook("agent.open.before", …)`; the old methods are removed after 2027-04-30. */
  "agent.session_open": AgentOpenRequest;
}
