// `@getpaseo/plugin/server`: `defineAgentTool` and the other runtime values server code imports.
import { toJSONSchema } from "zod";
import { TOOL } from "paseo:internal/tools";
import { lazyModule } from "paseo:internal/core";
export { defineRpc, defineSettings } from "paseo:plugin";

const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

export function defineAgentTool(tool) {
  const name = tool?.name;
  if (typeof name !== "string" || !TOOL_NAME.test(name) || name.length > 64) {
    throw new Error(`Invalid agent tool name: ${name} (must match /^[a-z][a-z0-9_]*$/ and be at most 64 characters)`);
  }
  if (typeof tool.description !== "string" || tool.description.length === 0) {
    throw new Error(`Agent tool ${name} must provide a description`);
  }
  if (typeof tool.execute !== "function") throw new Error(`Agent tool ${name} must provide an execute function`);
  if (typeof tool.input?.safeParseAsync !== "function") throw new Error(`Agent tool ${name} must provide a zod input schema`);
  let inputSchema;
  try {
    inputSchema = toJSONSchema(tool.input, { io: "input" });
    delete inputSchema.$schema;
  } catch (e) {
    throw new Error(`Agent tool ${name} has a schema that cannot be converted to JSON Schema: ${e?.message ?? e}`);
  }
  const metadata = { name, description: tool.description, inputSchema };
  if (tool.title !== undefined) metadata.title = String(tool.title);
  const definition = { ...tool };
  Object.defineProperty(definition, TOOL, { value: { metadata } });
  return Object.freeze(definition);
}

export function defineForgeServerProvider(provider) {
  return provider;
}

// The forge toolkit's values, as Paseo's SDK exports them: the error classes a forge provider
// throws (`kind` tells them apart; none sets `name`), the list of service methods, and small
// helpers for pull-request data.
export const PLUGIN_FORGE_SERVICE_METHODS = lazyModule("paseo:internal/forge").FORGE_SERVICE_METHODS;

const hidden = (object, key, value) => Object.defineProperty(object, key, { value, writable: true, configurable: true, enumerable: false });

export class ForgeCliMissingError extends Error {
  kind = "missing-cli";
}

export class ForgeAuthenticationError extends Error {
  kind = "auth-failure";
  constructor(message, params) {
    super(message);
    hidden(this, "stderr", params?.stderr ?? "");
  }
}

export class ForgeCommandError extends Error {
  kind = "command-error";
  constructor(label, params) {
    super(label?.kind === "request" ? `${label.brand} request failed: ${label.binary}` : `${label?.brand} CLI command failed: ${label?.binary}`);
    this.exitCode = params?.exitCode ?? null;
    hidden(this, "brand", label?.brand);
    hidden(this, "binary", label?.binary);
    hidden(this, "args", [...(params?.args ?? [])]);
    hidden(this, "cwd", params?.cwd);
    hidden(this, "stderr", params?.stderr ?? "");
  }
}

export function createUnavailableSearchResult(authState) {
  return { items: [], featuresEnabled: false, authState, githubFeaturesEnabled: false };
}

export function computeChecksStatus(checks) {
  if (checks.length === 0) return "none";
  if (checks.some((check) => check.status === "failure")) return "failure";
  if (checks.some((check) => check.status === "pending")) return "pending";
  return "success";
}

export function parseOptionalTime(value) {
  if (!value) return 0;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : 0;
}

// `PullRequestCheck.duration`, as Paseo's forge.ts formats it: whole seconds, minutes past 60
// (also past an hour: "123m 4s"); undefined without a start after the epoch and a later end.
export function formatCheckDuration(startedAt, completedAt) {
  const start = parseOptionalTime(startedAt);
  const end = parseOptionalTime(completedAt);
  if (start <= 0 || end <= start) return undefined;
  const seconds = Math.floor((end - start) / 1_000);
  const minutes = Math.floor(seconds / 60);
  const remaining = seconds % 60;
  return minutes > 0 ? `${minutes}m ${remaining}s` : `${remaining}s`;
}

// `createdAt` here is a number (milliseconds), as in Paseo's PullRequestTimelineItem.
export function compareTimelineItems(left, right) {
  return left.createdAt - right.createdAt || left.id.localeCompare(right.id);
}

// The legacy GitHub kinds map to the forge-neutral ones.
export function normalizeForgeSearchKinds(kinds) {
  if (!kinds) return ["issue", "change_request"];
  return kinds.map((kind) => {
    if (kind === "github-issue") return "issue";
    if (kind === "github-pr" || kind === "pr") return "change_request";
    return kind;
  });
}
