// `@getpaseo/plugin/server`: `defineAgentTool` and the other runtime values server code imports.
import { toJSONSchema } from "zod";
import { TOOL } from "paseo:internal/tools";
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
