// `@getpaseo/plugin`: the runtime values plugin contracts import (`defineRpc`,
// `defineSettings`, `defineAttachmentSource`), with the checks and messages of Paseo's SDK.

export function defineRpc(contract) {
  const name = typeof contract?.name === "string" ? contract.name.trim() : contract?.name;
  if (typeof name !== "string" || !/^[a-z][a-z0-9._-]*$/.test(name)) {
    throw new Error(`Invalid plugin RPC method: ${name}`);
  }
  return { ...contract, name };
}

export function defineSettings(definition) {
  const { id, scope, version } = definition ?? {};
  if (typeof id !== "string" || !/^[a-z][a-z0-9_-]*$/.test(id)) throw new Error("Invalid settings ID");
  if (scope !== "host") throw new Error("Only host-scoped settings are supported");
  if (!Number.isSafeInteger(version) || version < 1) throw new Error("Invalid settings version");
  return { ...definition };
}

// An attachment source is the app's (`client.addAttachmentSource`); its search is an ordinary
// plugin RPC that the server side handles with `server.handle`. Paseo's definition is the
// identity, checked where the app registers it.
export function defineAttachmentSource(definition) {
  return definition;
}

// The shape of an attachment search's result (`{ items }`), as Paseo's SDK exports it. Paseo's
// are zod schemas; these validate the same rules with zod's `parse`/`safeParse` surface (sync
// and async) and Standard Schema's `~standard`, without making every plugin that imports
// `@getpaseo/plugin` evaluate zod. The daemon checks the same rules in Rust on every search.
const ITEM_TEXT = ["id", "identifier", "title", "text", "resourceType"];

function attachmentItemIssues(item, path) {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    return [{ code: "invalid_type", expected: "object", path, message: "Invalid input: expected object" }];
  }
  const issues = [];
  for (const key of [...ITEM_TEXT, "url", "subtitle"]) {
    const value = item[key];
    if (key === "subtitle" && value === undefined) continue;
    if (typeof value !== "string") {
      issues.push({ code: "invalid_type", expected: "string", path: [...path, key], message: `Invalid input: expected string, received ${value === null ? "null" : typeof value}` });
    } else if (value.length === 0) {
      issues.push({ code: "too_small", minimum: 1, origin: "string", path: [...path, key], message: "Too small: expected string to have >=1 characters" });
    } else if (key === "url" && !URL.canParse(value)) {
      issues.push({ code: "invalid_format", format: "url", path: [...path, key], message: "Invalid URL" });
    }
  }
  return issues;
}

function payloadIssues(value) {
  if (value === null || typeof value !== "object" || !Array.isArray(value.items)) {
    return [{ code: "invalid_type", expected: "array", path: ["items"], message: "Invalid input: expected array" }];
  }
  return value.items.flatMap((item, i) => attachmentItemIssues(item, ["items", i]));
}

class AttachmentSchemaError extends Error {
  name = "ZodError";
  constructor(issues) {
    super(JSON.stringify(issues, null, 2));
    this.issues = issues;
  }
}

function schema(name, issuesOf, pick) {
  const safeParse = (value) => {
    const issues = issuesOf(value);
    return issues.length ? { success: false, error: new AttachmentSchemaError(issues) } : { success: true, data: pick(value) };
  };
  const parse = (value) => {
    const result = safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  };
  const members = Object.freeze({
    parse,
    safeParse,
    parseAsync: async (value) => parse(value),
    safeParseAsync: async (value) => safeParse(value),
    "~standard": Object.freeze({
      version: 1,
      vendor: "paseo",
      validate: (value) => {
        const issues = issuesOf(value);
        return issues.length ? { issues: issues.map((i) => ({ message: i.message, path: i.path })) } : { value: pick(value) };
      },
    }),
  });
  // Any other zod member fails naming what there is, instead of `undefined is not a function`.
  return new Proxy(members, {
    get(target, key) {
      if (key in target || typeof key === "symbol" || key === "then" || key === "toJSON") return target[key];
      throw new TypeError(`${name}.${key} is not available on this host: it offers parse, safeParse, parseAsync and safeParseAsync; build the schema with zod for more`);
    },
  });
}

// zod objects strip unknown keys; so do these.
const pickItem = (item) => {
  const out = {};
  for (const key of [...ITEM_TEXT, "url", "subtitle"]) if (item[key] !== undefined) out[key] = item[key];
  return out;
};

export const PluginAttachmentItemSchema = schema("PluginAttachmentItemSchema", (item) => attachmentItemIssues(item, []), pickItem);
export const PluginAttachmentSearchPayloadSchema = schema("PluginAttachmentSearchPayloadSchema", payloadIssues, (value) => ({ items: value.items.map(pickItem) }));
