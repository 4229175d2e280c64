// `@getpaseo/plugin/server/acp`: a Paseo agent provider built from an ACP (Agent Client
// Protocol) agent. Hand-written to match js/plugin/acp.js (its header lists what is supported)
// and the shapes of Paseo's SDK (`packages/plugin/src/server/acp.ts`).
import type { JsonValue } from "../protocol/agent-types";
import type {
  ProviderCatalog,
  ProviderCommand,
  ProviderConfigState,
  ProviderNotice,
  ProviderRegistration,
  ProviderTimelineItem,
} from "./provider";

interface RunAcpProviderBaseOptions {
  /** The provider's id, `/^[a-z][a-z0-9._-]*$/`. */
  id: string;
  label: string;
  description?: string;
  /** A self-contained SVG, relative to the plugin's folder. */
  icon?: string;
  /** Added to `process.env` for the agent; a session's `config.env` comes on top. */
  env?: Readonly<Record<string, string>>;
  acpOptions?: AcpOptions;
  transformers?: readonly AcpTransformer[];
}

/** Exactly one of `command` (a process speaking ACP on its stdio) or `connector`. */
export type RunAcpProviderOptions = RunAcpProviderBaseOptions &
  (
    | { command: readonly [string, ...string[]]; connector?: never }
    | { connector: AcpConnector; command?: never }
  );

/** One JSON-RPC 2.0 message: a request, a notification, a result or an error. */
export type AcpStreamMessage =
  | { jsonrpc: "2.0"; id: string | number | null; method: string; params?: unknown }
  | { jsonrpc: "2.0"; method: string; params?: unknown }
  | { jsonrpc: "2.0"; id: string | number | null; result: unknown }
  | {
      jsonrpc: "2.0";
      id: string | number | null;
      error: { code: number; message: string; data?: unknown };
    };

/**
 * An agent in the plugin's own isolate: messages to it on `writable`, from it on `readable`.
 * This host has `ReadableStream` but no `WritableStream` global, so any `{ write(message) }`
 * sink will do, and `readable` may be any async iterable.
 */
export interface AcpStream {
  writable: WritableStream<AcpStreamMessage> | AcpMessageSink;
  readable: ReadableStream<AcpStreamMessage> | AsyncIterable<AcpStreamMessage>;
}

/** Takes the messages for the agent, in order. */
export interface AcpMessageSink {
  write(message: AcpStreamMessage): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** Called once per agent (each session, and each catalogue read, gets its own). */
export type AcpConnector = () => AcpStream | Promise<AcpStream>;

export interface AcpOptions {
  /** Accepted for compatibility; only ACP protocol version 1 is spoken. */
  protocol?: "auto" | "v1";
  /** How long `initialize` may take (10 000 ms by default). */
  startupTimeoutMs?: number;
  /** Hold `session.ready` until the agent lists its commands (or the timeout passes). */
  waitForInitialCommands?: boolean;
  /** 1 000 ms by default. */
  initialCommandsTimeoutMs?: number;
}

export interface AcpContext {
  /** Paseo's session id (`"catalog"` while reading the catalogue). */
  sessionId: string;
}

export interface AcpConfigAccess {
  read(): Promise<Readonly<Record<string, JsonValue>>>;
  set(id: string, value: JsonValue): Promise<void>;
}

export interface AcpDiscoveryContext extends AcpContext {
  config: AcpConfigAccess;
}

export interface AcpConfigureContext extends AcpContext {
  config: AcpConfigAccess;
}

export type AcpConfigChange =
  | { target: "model"; value: string | null }
  | { target: "mode"; value: string | null }
  | { target: "thinking"; value: string | null }
  | { target: "setting"; id: string; value: JsonValue };

/** A tool call as the agent last described it. */
export interface AcpToolCallSnapshot {
  id: string;
  name?: string;
  title: string;
  kind?: string;
  status: "pending" | "in_progress" | "completed" | "failed";
  input: JsonValue;
  output: JsonValue;
  locations: readonly string[];
}

/** What a `notification` transformer turns a vendor notification into. */
export type AcpVendorUpdate =
  | { type: "commands"; commands: readonly ProviderCommand[] }
  | { type: "config"; config: ProviderConfigState }
  | { type: "timeline"; item: ProviderTimelineItem }
  | { type: "notice"; notice: ProviderNotice };

/** Vendor hooks. `configure` is accepted but never called by this host (no session.configure). */
export interface AcpTransformer {
  discover?(catalog: ProviderCatalog, context: AcpDiscoveryContext): Promise<ProviderCatalog> | ProviderCatalog;
  configure?(change: AcpConfigChange, context: AcpConfigureContext): Promise<"handled" | "pass">;
  /** Sees the agent's notifications other than `session/update`, in the order they arrive. */
  notification?(
    notification: { method: string; params: JsonValue },
    context: AcpContext,
  ): AcpVendorUpdate | readonly AcpVendorUpdate[] | null;
  toolCall?(toolCall: AcpToolCallSnapshot, context: AcpContext): AcpToolCallSnapshot;
}

/**
 * The provider to pass to `server.registerProvider`. Throws "ACP provider requires exactly one
 * command or SDK connector" and "ACP provider command must contain an executable".
 */
export declare function runAcpProvider(options: RunAcpProviderOptions): ProviderRegistration;
