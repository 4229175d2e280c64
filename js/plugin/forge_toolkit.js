// `@getpaseo/plugin/server/forge-toolkit`: the shared machinery a forge plugin would otherwise
// copy from another one. Process execution (the Windows quoting rules, an environment without
// Paseo's own runtime controls), a CLI runner that classifies failures onto the SDK's forge
// errors, JSON output parsing, argument redaction, a token-authenticated HTTP client, git
// remote parsing and pagination guards. Written here to follow the behaviour and error texts
// of Paseo's SDK (packages/plugin/src/server/forge-toolkit/*, MIT).
import { execFile } from "node:child_process";
import { constants as fsConstants, promises as fsPromises } from "node:fs";
import path from "node:path";
import process from "node:process";
import { ForgeAuthenticationError, ForgeCommandError } from "paseo:plugin/server";

// ---------------------------------------------------------------------------------------------
// Processes

// Variables that steer Paseo's own processes; an external CLI must not inherit them.
const RUNTIME_CONTROL_ENV_KEYS = [
  "PASEO_NODE_ENV", "PASEO_DESKTOP_MANAGED", "PASEO_SUPERVISED",
  "ELECTRON_RUN_AS_NODE", "ELECTRON_NO_ATTACH_CONSOLE", "ESBUILD_BINARY_PATH",
];
const DEFAULT_MAX_BUFFER = 10 * 1024 * 1024;
const isWindows = () => process.platform === "win32";

export function createExternalProcessEnv(baseEnv, envOverlay = {}) {
  const merged = { ...baseEnv, ...envOverlay };
  const env = {};
  for (const [key, value] of Object.entries(merged)) {
    if (value !== undefined && !RUNTIME_CONTROL_ENV_KEYS.includes(key)) env[key] = value;
  }
  return env;
}

function isCommandScript(command) {
  if (!isWindows()) return false;
  const ext = path.extname(command).toLowerCase();
  return ext === ".cmd" || ext === ".bat";
}

const hasSeparator = (value) => /[/\\]/.test(value);

export function shouldUseWindowsShell(command, requestedShell) {
  if (isCommandScript(command)) return true;
  if (requestedShell !== undefined) return requestedShell;
  return isWindows() && !hasSeparator(command) && path.extname(command) === "";
}

// cmd.exe's metacharacters, each escaped with `^` (twice when a .cmd/.bat re-parses its line).
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;
function escapeCmdMeta(value, twice) {
  const once = value.replace(CMD_META, "^$1");
  return twice ? once.replace(CMD_META, "^$1") : once;
}

export function quoteWindowsCommand(command) {
  if (!isWindows()) return command;
  return escapeCmdMeta(path.normalize(command), false);
}

export function quoteWindowsArgument(argument, doubleEscapeMetaCharacters = false) {
  if (!isWindows()) return argument;
  // MSVCRT rules: backslashes before a quote are doubled and the quote escaped; trailing
  // backslashes are doubled so that they do not escape the closing quote.
  const inner = argument
    .replace(/(\\*)"/g, (_, slashes) => `${slashes}${slashes}\\"`)
    .replace(/\\+$/, (slashes) => slashes + slashes);
  return escapeCmdMeta(`"${inner}"`, doubleEscapeMetaCharacters);
}

// execFile as a promise of { stdout, stderr }; a failure carries both (as util.promisify's does).
function execFileAsync(file, args, options) {
  return new Promise((resolve, reject) => {
    execFile(file, args, options, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

export async function execCommand(command, args, options = {}) {
  const shell = shouldUseWindowsShell(command, options.shell);
  const viaCmd = isWindows() && shell === true;
  let file = command, argv = args;
  if (viaCmd) {
    const twice = isCommandScript(command);
    const line = [quoteWindowsCommand(command), ...args.map((a) => quoteWindowsArgument(a, twice))].join(" ");
    file = process.env.ComSpec ?? process.env.COMSPEC ?? "cmd.exe";
    argv = ["/d", "/s", "/c", `"${line}"`];
  }
  const { stdout, stderr } = await execFileAsync(file, argv, {
    cwd: options.cwd,
    env: createExternalProcessEnv(process.env, options.envOverlay),
    encoding: "utf8",
    maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
    timeout: options.timeout,
    windowsHide: true,
    shell: viaCmd ? false : shell,
    windowsVerbatimArguments: viaCmd,
  });
  return { stdout, stderr };
}

export async function findExecutable(name) {
  const bare = name.trim();
  if (bare === "") return null;
  const extensions = isWindows() ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";") : [""];
  const mode = isWindows() ? fsConstants.F_OK : fsConstants.X_OK;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, bare + ext);
      try {
        await fsPromises.access(candidate, mode);
        return candidate;
      } catch {
        // not here; keep looking
      }
    }
  }
  return null;
}

export function runGitCommand(args, options) {
  return execCommand("git", args, { cwd: options.cwd });
}

// ---------------------------------------------------------------------------------------------
// CLI runner

const isBuffer = (value) => value instanceof Uint8Array && Buffer.isBuffer(value);
const textOf = (value) => (typeof value === "string" ? value : isBuffer(value) ? value.toString("utf8") : "");

// The fields of a thrown value a failed command may carry, each only when it has the right type.
function failureFields(error) {
  if (error === null || typeof error !== "object") return { message: String(error) };
  const { code, killed, stderr, message } = error;
  return {
    code: typeof code === "string" || typeof code === "number" || code === null ? code : undefined,
    killed: typeof killed === "boolean" ? killed : undefined,
    stderr: typeof stderr === "string" || isBuffer(stderr) ? stderr : undefined,
    message: typeof message === "string" ? message : undefined,
  };
}

export function createForgeCliRunner(options) {
  const { binary, isAuthFailureText, errorClasses } = options;
  return {
    run(args, runOptions) {
      return execCommand(runOptions.binaryPath ?? binary, args, {
        cwd: runOptions.cwd,
        envOverlay: { ...options.envOverlay, ...runOptions.envOverlay },
        maxBuffer: DEFAULT_MAX_BUFFER,
        timeout: options.timeoutMs,
      });
    },
    normalizeError(error, context) {
      if (errorClasses.isAlreadyClassified(error)) return error;
      if (errorClasses.isCommandError(error)) {
        return isAuthFailureText(error.stderr) ? errorClasses.createAuthError(error.stderr) : error;
      }
      const failure = failureFields(error);
      if (failure.code === "ENOENT") return errorClasses.createMissingError();
      const stderr = textOf(failure.stderr);
      if (isAuthFailureText(stderr) || isAuthFailureText(failure.message ?? "")) {
        return errorClasses.createAuthError(stderr);
      }
      const base = { args: context.args, cwd: context.cwd };
      if (failure.killed === true) {
        const ms = context.timeoutMs ?? options.timeoutMs;
        return errorClasses.createCommandError({
          ...base,
          exitCode: null,
          stderr: stderr || `${binary} was terminated before completing (timed out after ${ms}ms or exceeded the output limit)`,
        });
      }
      return errorClasses.createCommandError({
        ...base,
        exitCode: typeof failure.code === "number" ? failure.code : null,
        stderr: stderr || `${binary} command failed without stderr`,
      });
    },
  };
}

// One lookup at a time, remembered once it finds the CLI (a miss or a failure is tried again).
export function createCachedCliPathResolver(resolve) {
  let pending = null;
  return function resolveCliPath() {
    if (pending) return pending;
    const attempt = resolve().then(
      (found) => {
        if (found === null && pending === attempt) pending = null;
        return found;
      },
      (error) => {
        if (pending === attempt) pending = null;
        throw error;
      },
    );
    pending = attempt;
    return attempt;
  };
}

export function parseCliJsonOutput(options) {
  const { commandName, args, cwd, stdout, schema, createCommandError } = options;
  const fail = (stderr) => createCommandError({ args, cwd, exitCode: null, stderr });
  let data;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw fail(`${commandName} did not return valid JSON (${stdout.length} bytes)`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw fail(`${commandName} JSON did not match the expected schema: ${parsed.error.message}`);
  return parsed.data;
}

export async function defaultResolveRemoteUrl(cwd) {
  try {
    const { stdout } = await runGitCommand(["config", "--get", "remote.origin.url"], { cwd });
    const url = stdout.trim();
    return url === "" ? null : url;
  } catch {
    return null;
  }
}

// `--flag value` and `--flag=value` spellings of a sensitive flag keep the flag, not the value.
export function redactCommandArgs(args, options) {
  const sensitive = new Set(options.sensitiveFlags);
  const placeholder = options.placeholder ?? "<redacted>";
  const out = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!sensitive.has(flag)) {
      out.push(arg);
    } else if (eq >= 0) {
      out.push(`${flag}=${placeholder}`);
    } else {
      out.push(flag);
      if (i + 1 < args.length) {
        out.push(placeholder);
        i += 1;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HTTP client

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
const REDACTED = "<redacted>";

export function buildUrl(baseUrl, urlPath, query) {
  const url = new URL(urlPath.replace(/^\/+/, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
  }
  return url;
}

export function resolveTokenFromEnv(names, env = process.env) {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return null;
}

// What a failed request looks like in an error's `args`: the method and the path with its
// query, the redacted keys' values replaced.
function describeRequest(request) {
  const redact = new Set(request.redactQueryKeys ?? []);
  const query = Object.entries(request.query ?? {})
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${key}=${redact.has(key) ? REDACTED : String(value)}`)
    .join("&");
  return [request.method ?? "GET", query ? `${request.path}?${query}` : request.path];
}

function hostOf(baseUrl) {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

export function createForgeHttpClient(options) {
  const { brand } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const isAuthFailureStatus = options.isAuthFailureStatus ?? ((status) => status === 401 || status === 403);
  const applyToken = options.applyToken ?? ((token, { headers }) => headers.set("authorization", `Bearer ${token}`));
  const label = { brand, binary: hostOf(options.baseUrl), kind: "request" };
  const commandError = (request, exitCode, stderr) =>
    new ForgeCommandError(label, { args: describeRequest(request), cwd: request.cwd, exitCode, stderr });

  async function send(request) {
    const token = await options.resolveToken();
    if (!token) throw new ForgeAuthenticationError(`${brand} has no access token configured`, { stderr: "" });
    const url = buildUrl(options.baseUrl, request.path, request.query);
    const headers = new Headers({ accept: "application/json" });
    if (options.userAgent) headers.set("user-agent", options.userAgent);
    for (const [key, value] of Object.entries(request.headers ?? {})) headers.set(key, value);
    let body;
    if (request.body !== undefined) {
      body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    applyToken(token, { url, headers });

    const fetchImpl = options.fetchImpl ?? globalThis.fetch;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let response;
    try {
      const init = { method: request.method ?? "GET", headers, signal: controller.signal };
      if (body !== undefined) init.body = body;
      response = await fetchImpl(url, init);
    } catch (error) {
      const reason = controller.signal.aborted
        ? `${brand} request timed out after ${timeoutMs}ms`
        : error instanceof Error ? error.message : String(error);
      throw commandError(request, null, reason);
    } finally {
      clearTimeout(timer);
    }
    const text = await response.text().catch(() => "");
    if (isAuthFailureStatus(response.status)) {
      throw new ForgeAuthenticationError(`${brand} rejected the request (HTTP ${response.status})`, { stderr: text });
    }
    if (!response.ok) throw commandError(request, response.status, text || `HTTP ${response.status}`);
    return { status: response.status, headers: response.headers, text };
  }

  async function request(req) {
    const response = await send(req);
    // An empty body is `undefined`, so that a 204 endpoint can declare z.undefined().
    let data;
    if (response.text.trim() !== "") {
      try {
        data = JSON.parse(response.text);
      } catch {
        throw commandError(req, response.status, `${brand} did not return valid JSON (${response.text.length} bytes)`);
      }
    }
    const parsed = req.schema.safeParse(data);
    if (!parsed.success) {
      throw commandError(req, response.status, `${brand} JSON did not match the expected schema: ${parsed.error.message}`);
    }
    return parsed.data;
  }

  return { send, request };
}

// ---------------------------------------------------------------------------------------------
// Git remotes (Paseo's @getpaseo/protocol/git-remote parser)

const TRANSPORTS = { "https:": "https", "http:": "http", "ssh:": "ssh" };
const DEFAULT_PORTS = { "https:": "443", "http:": "80", "ssh:": "22" };

const normalizeHost = (host) => host.trim().replace(/\.+$/, "").toLowerCase();
const validHost = (host) => /^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/.test(host);
function normalizeRemotePath(remotePath) {
  let p = remotePath.trim().replace(/^\/+|\/+$/g, "");
  if (p.endsWith(".git")) p = p.slice(0, -4);
  return p === "" ? null : p;
}

export function parseGitRemoteLocation(remoteUrl) {
  const trimmed = remoteUrl.trim();
  if (trimmed === "") return null;
  // The scp form (`user@host:path`) has no scheme; `ssh://git@host:22/x` must not match it.
  const scp = trimmed.includes("://") ? null : /^[^@]+@([^:]+):(.+)$/.exec(trimmed);
  if (scp) {
    const host = normalizeHost(scp[1]);
    const remotePath = normalizeRemotePath(scp[2]);
    return validHost(host) && remotePath ? { transport: "scp", host, path: remotePath } : null;
  }
  let url;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  const protocol = url.protocol.toLowerCase();
  const transport = TRANSPORTS[protocol];
  if (!transport) return null;
  const host = normalizeHost(url.hostname);
  let decoded;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  const remotePath = normalizeRemotePath(decoded);
  if (!validHost(host) || !remotePath) return null;
  const port = url.port && url.port !== DEFAULT_PORTS[protocol] ? url.port : undefined;
  return port ? { transport, host, port, path: remotePath } : { transport, host, path: remotePath };
}

// ---------------------------------------------------------------------------------------------
// Pagination

export function createForgePageGuard(options) {
  const { brand, pageSize } = options;
  const maxContinuations = options.maxContinuationsWithoutTotal ?? 100;
  const seen = new Set();
  return {
    assertProgress({ itemCount, pageKeys }) {
      if (itemCount < pageSize) return;
      const fingerprint = JSON.stringify(pageKeys);
      if (seen.has(fingerprint)) throw new Error(`${brand} pagination repeated a full page without making progress`);
      seen.add(fingerprint);
    },
    hasNextPage({ itemCount, page, visited, total }) {
      if (itemCount < pageSize) return false;
      if (total !== undefined) return visited < total;
      if (page > maxContinuations) throw new Error(`${brand} pagination exceeded ${maxContinuations} continuations without total`);
      return true;
    },
  };
}
