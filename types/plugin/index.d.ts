// `@getpaseo/plugin`: contracts shared by a plugin's client and server code (RPC methods,
// settings). Hand-written to match js/plugin/index.js; the hook types are generated
// (../hooks.generated.d.ts). The server-side types are re-exported too, because plugins import
// `PluginServerContext` from here as well as from `@getpaseo/plugin/server`.
import type { ZodType, input as ZodInput, output as ZodOutput } from "zod";
import type { PaseoApi } from "./paseo";

export type * from "./server";

/** A plugin RPC method: callers send `input`, the server's handler answers `output`. */
export interface PluginRpcContract<Input extends ZodType = ZodType, Output extends ZodType = ZodType> {
  /** Matches `/^[a-z][a-z0-9._-]*$/` after trimming. */
  readonly name: string;
  readonly input: Input;
  readonly output: Output;
}

/** What a handler of `contract` receives: the zod output of its input schema. Paseo's
 * packages/plugin/src/rpc.ts, re-exported from packages/plugin/src/index.ts. */
export type RpcInput<Contract extends PluginRpcContract> = ZodOutput<Contract["input"]>;
/** What a handler of `contract` returns: the zod input of its output schema (rpc.ts, as above). */
export type RpcOutput<Contract extends PluginRpcContract> = ZodInput<Contract["output"]>;

/** Checks the name (`Invalid plugin RPC method: <name>`) and returns the contract, name trimmed. */
export declare function defineRpc<Input extends ZodType, Output extends ZodType>(
  contract: PluginRpcContract<Input, Output>,
): PluginRpcContract<Input, Output>;

export interface SettingsDefinition<Schema extends ZodType = ZodType> {
  /** Matches `/^[a-z][a-z0-9_-]*$/`. */
  id: string;
  scope: "host";
  /** A safe integer ≥ 1; raise it when the stored shape changes and provide `migrate`. */
  version: number;
  schema: Schema;
  /** Converts values stored by an older `version`. Runs on the host. */
  migrate?: (values: unknown, fromVersion: number) => unknown | Promise<unknown>;
}

/** Checks `id`, `scope` and `version` and returns the definition. */
export declare function defineSettings<Schema extends ZodType>(
  definition: SettingsDefinition<Schema>,
): SettingsDefinition<Schema>;

export type DeepReadonly<Value> = Value extends (...args: never[]) => unknown
  ? Value
  : Value extends readonly (infer Item)[]
    ? readonly DeepReadonly<Item>[]
    : Value extends object
      ? { readonly [Key in keyof Value]: DeepReadonly<Value[Key]> }
      : Value;

export type PluginSettingsErrorCode =
  | "stored_invalid"
  | "migration_failed"
  | "mutator_threw"
  | "thenable_returned"
  | "reentrant_access"
  | "next_invalid"
  | "store_poisoned";

/** What a settings mutator decides, synchronously. */
export type PluginSettingsDecision<Values, Result> =
  | { status: "unchanged"; result: Result }
  | { status: "commit"; values: Values; result: Result };

export type PluginSettingsState<Schema extends ZodType> =
  | { status: "ready"; revision: string; values: ZodOutput<Schema> }
  | { status: "invalid"; revision: string; error: string; code?: PluginSettingsErrorCode };

export type PluginSettingsUpdateResult<Schema extends ZodType, Result> =
  | { status: "saved" | "unchanged"; revision: string; values: ZodOutput<Schema>; result: Result }
  | { status: "invalid"; revision: string; error: string; code: PluginSettingsErrorCode };

/** The handle `server.registerSettings(definition)` returns. */
export interface PluginSettings<Schema extends ZodType> {
  read(): Promise<PluginSettingsState<Schema>>;
  /** Called after each committed write; returns the unsubscribe function. */
  subscribe(listener: (state: PluginSettingsState<Schema>) => void | Promise<void>): PluginCleanup;
  /** A serialised read-modify-write; `mutate` gets frozen values and must decide synchronously. */
  update<Result>(
    mutate: (current: DeepReadonly<ZodOutput<Schema>>) => PluginSettingsDecision<ZodInput<Schema>, Result>,
  ): Promise<PluginSettingsUpdateResult<Schema, Result>>;
}

/** What an RPC handler receives besides its input. */
export interface PluginHandlerContext {
  paseo: PaseoApi;
}

/** Returned by `contribute(server)`; called (and awaited) when the plugin stops. */
export type PluginCleanup = () => void | Promise<void>;

/** An attachment source the app offers in its composer; its `search` is a plugin RPC that the
 * server side answers with `server.handle`. Paseo's definition is the identity. */
export interface PluginAttachmentSourceContribution {
  id: string;
  title: string;
  icon: string;
  pickerTitle: string;
  searchPlaceholder: string;
  search: PluginRpcContract;
}

/** One search result of an attachment source. */
export interface PluginAttachmentItem {
  id: string;
  identifier: string;
  title: string;
  subtitle?: string;
  url: string;
  text: string;
  resourceType: string;
}

export interface PluginAttachmentSearchPayload {
  items: PluginAttachmentItem[];
}

/** The result of an attachment search, as Paseo's SDK exports it. On this host these validate
 * with `parse`, `safeParse`, `parseAsync` and `safeParseAsync` (and Standard Schema); other zod
 * members throw, so build your own schema with zod to extend them. */
export declare const PluginAttachmentItemSchema: ZodType<PluginAttachmentItem>;
export declare const PluginAttachmentSearchPayloadSchema: ZodType<PluginAttachmentSearchPayload>;

export declare function defineAttachmentSource<Definition extends PluginAttachmentSourceContribution>(
  definition: Definition,
): Definition;
