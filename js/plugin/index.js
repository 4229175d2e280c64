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
