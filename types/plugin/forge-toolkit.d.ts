// `@getpaseo/plugin/server/forge-toolkit`: what a forge plugin shares with every other one
// (process execution, a CLI runner, JSON parsing, an HTTP client, git remotes, pagination).
// Hand-written to match js/plugin/forge_toolkit.js, which follows Paseo's SDK.
import type { ZodType } from "zod";
import type { ForgeCommandFailureParams } from "./server";

// ---- process ----

export type ProcessEnvRecord = Record<string, string | undefined>;

export interface ExecCommandOptions {
  cwd?: string;
  /** Merged over the daemon's environment; an `undefined` value removes the variable. */
  envOverlay?: ProcessEnvRecord;
  /** Defaults to 10 MiB. */
  maxBuffer?: number;
  timeout?: number;
  shell?: boolean | string;
}

export interface ExecCommandResult {
  stdout: string;
  stderr: string;
}

/** `baseEnv` with `envOverlay` over it, minus Paseo's runtime controls and undefined values. */
export declare function createExternalProcessEnv(
  baseEnv: ProcessEnvRecord,
  envOverlay?: ProcessEnvRecord,
): Record<string, string>;
/** Runs `command` (through `cmd.exe` for .cmd/.bat files and bare names on Windows). */
export declare function execCommand(command: string, args: string[], options?: ExecCommandOptions): Promise<ExecCommandResult>;
/** The first executable `name` on PATH, or null. */
export declare function findExecutable(name: string): Promise<string | null>;
/** `argument` quoted for cmd.exe on Windows; unchanged elsewhere. */
export declare function quoteWindowsArgument(argument: string, doubleEscapeMetaCharacters?: boolean): string;
/** `command` escaped for cmd.exe on Windows; unchanged elsewhere. */
export declare function quoteWindowsCommand(command: string): string;
export declare function runGitCommand(args: string[], options: { cwd: string }): Promise<ExecCommandResult>;
/** True for Windows command scripts; else `requestedShell` when given; else whether a bare name on Windows. */
export declare function shouldUseWindowsShell(command: string, requestedShell?: boolean | string): boolean | string;

// ---- cli ----

export interface CliCommandErrorShape extends Error {
  stderr: string;
}

export interface ForgeCliRunnerOptions {
  cwd: string;
  binaryPath?: string;
  envOverlay?: Record<string, string>;
}

export interface ForgeCliRunnerResult {
  stdout: string;
  stderr: string;
}

export interface CreateForgeCliRunnerOptions {
  binary: string;
  envOverlay: Record<string, string>;
  timeoutMs: number;
  isAuthFailureText: (text: string) => boolean;
  errorClasses: {
    isAlreadyClassified: (error: unknown) => boolean;
    isCommandError: (error: unknown) => error is CliCommandErrorShape;
    createAuthError: (stderr: string) => Error;
    createMissingError: () => Error;
    createCommandError: (params: ForgeCommandFailureParams) => Error;
  };
}

export interface ForgeCliRunner {
  run(args: string[], runOptions: ForgeCliRunnerOptions): Promise<ForgeCliRunnerResult>;
  /** Classifies a failure of `run`: missing CLI, auth failure or command error. */
  normalizeError(error: unknown, context: { args: string[]; cwd: string; timeoutMs?: number }): Error;
}

export declare function createForgeCliRunner(options: CreateForgeCliRunnerOptions): ForgeCliRunner;
/** Shares one lookup between callers and remembers a path once found (a null or a failure is retried). */
export declare function createCachedCliPathResolver(resolve: () => Promise<string | null>): () => Promise<string | null>;
/** `git config --get remote.origin.url` in `cwd`, or null. */
export declare function defaultResolveRemoteUrl(cwd: string): Promise<string | null>;
export declare function parseCliJsonOutput<T>(options: {
  commandName: string;
  args: string[];
  cwd: string;
  stdout: string;
  schema: ZodType<T>;
  createCommandError: (params: ForgeCommandFailureParams) => Error;
}): T;
/** Replaces the values of `sensitiveFlags` (`--flag value` and `--flag=value`); placeholder `<redacted>`. */
export declare function redactCommandArgs(
  args: readonly string[],
  options: { sensitiveFlags: Iterable<string>; placeholder?: string },
): string[];

// ---- http ----

export type ForgeHttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type ForgeHttpQuery = Record<string, string | number | boolean | null | undefined>;

export interface ForgeHttpRawRequest {
  /** Repository directory the call is made for. Surfaces in classified errors. */
  cwd: string;
  /** Path appended to `baseUrl`, e.g. `/repos/acme/app/pulls`. */
  path: string;
  method?: ForgeHttpMethod;
  query?: ForgeHttpQuery;
  /** Serialized as JSON unless it is already a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Query keys whose values are replaced before the call appears in an error. */
  redactQueryKeys?: readonly string[];
}

export interface ForgeHttpRequest<T> extends ForgeHttpRawRequest {
  schema: ZodType<T>;
}

export interface ForgeHttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface CreateForgeHttpClientOptions {
  /** Brand shown in classified errors, e.g. "Acme". */
  brand: string;
  /** Absolute API root, e.g. `https://acme.test/api/v5`. */
  baseUrl: string;
  /** The access token, or null when none is configured (keep it in the plugin's secret store). */
  resolveToken: () => Promise<string | null>;
  /** Defaults to an `Authorization: Bearer <token>` header. */
  applyToken?: (token: string, request: { url: URL; headers: Headers }) => void;
  /** Defaults to 30 000 ms. */
  timeoutMs?: number;
  userAgent?: string;
  /** Statuses treated as an auth failure. Defaults to 401 and 403. */
  isAuthFailureStatus?: (status: number) => boolean;
  /** Defaults to the global `fetch`. */
  fetchImpl?: typeof fetch;
}

export interface ForgeHttpClient {
  /** Sends the request and parses the JSON body (an empty one is `undefined`) through `schema`. */
  request<T>(request: ForgeHttpRequest<T>): Promise<T>;
  /** Sends the request and returns the raw body. */
  send(request: ForgeHttpRawRequest): Promise<ForgeHttpResponse>;
}

export declare function createForgeHttpClient(options: CreateForgeHttpClientOptions): ForgeHttpClient;
/** The first non-empty (trimmed) variable of `names` in `env` (default `process.env`), or null. */
export declare function resolveTokenFromEnv(names: readonly string[], env?: Record<string, string | undefined>): string | null;
/** `path` under `baseUrl` (as a directory), with the query's non-null values. */
export declare function buildUrl(baseUrl: string, path: string, query?: ForgeHttpQuery): URL;

// ---- git remotes ----

export interface GitRemoteLocation {
  transport: "scp" | "ssh" | "http" | "https";
  /** Lower-cased, without trailing dots. */
  host: string;
  /** A non-default port, when the remote names one. */
  port?: string;
  /** Without surrounding slashes or a `.git` suffix. */
  path: string;
}

export declare function parseGitRemoteLocation(remoteUrl: string): GitRemoteLocation | null;

// ---- paging ----

export interface ForgePageGuard {
  /** Records a full page; throws when the same full page comes back. */
  assertProgress(input: { itemCount: number; pageKeys: readonly string[] }): void;
  /** Whether to request another page; throws past the continuation cap when there is no total. */
  hasNextPage(input: { itemCount: number; page: number; visited: number; total: number | undefined }): boolean;
}

export interface CreateForgePageGuardOptions {
  /** Brand shown in the thrown message. */
  brand: string;
  pageSize: number;
  /** Continuation cap used when the forge does not report a total. Defaults to 100. */
  maxContinuationsWithoutTotal?: number;
}

export declare function createForgePageGuard(options: CreateForgePageGuardOptions): ForgePageGuard;
