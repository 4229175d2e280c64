// `@getpaseo/plugin/server/provider`: the values of provider protocol v1 that provider plugins
// import: the version, the capability names, and capability negotiation and checks, with the
// messages of Paseo's SDK. The protocol's shapes are in types/ and, as the daemon checks
// them, in runtime/src/providers/protocol.json.
import { z } from "zod";

export const PROVIDER_PROTOCOL_VERSION = 1;

export const PROVIDER_CAPABILITIES = Object.freeze([
  "prompt.message", "prompt.command", "prompt.image", "prompt.output_schema", "prompt.steer",
  "session.archive", "session.configure", "session.list", "session.persistence",
  "session.revert.both", "session.revert.conversation", "session.revert.files",
  "session.subsession", "session.unarchive", "permission", "permission.tool_policy",
  "timeline.plugin",
]);

const KNOWN = new Set(PROVIDER_CAPABILITIES);

export function isProviderCapability(capability) {
  return KNOWN.has(capability);
}

/** The capabilities both sides have: `offered` in its order, once each, known ones only. */
export function negotiateProviderCapabilities(offered, supported) {
  const both = new Set(supported.filter(isProviderCapability));
  return offered.filter((capability, index) => both.has(capability) && offered.indexOf(capability) === index);
}

function promptCapabilities(prompt) {
  const needs = [];
  if (prompt.delivery === "steer") needs.push("prompt.steer");
  if (prompt.input.type === "command") {
    needs.push("prompt.command");
  } else {
    needs.push("prompt.message");
    if (prompt.input.content.some((part) => part.type === "image")) needs.push("prompt.image");
  }
  if (prompt.outputSchema !== undefined) needs.push("prompt.output_schema");
  return needs;
}

/** What a connection must have negotiated to accept `input`. */
export function requiredProviderCapabilities(input) {
  switch (input.type) {
    case "sessions":
      return ["session.list"];
    case "session.open":
      return [...(input.persistence ? ["session.persistence"] : []), ...(input.config.toolPolicy ? ["permission.tool_policy"] : [])];
    case "session.prompt":
      return promptCapabilities(input.prompt);
    case "session.permission":
      return ["permission"];
    case "session.configure":
      return ["session.configure"];
    case "session.revert":
      return [`session.revert.${input.scope}`];
    case "session.archive":
      return ["session.archive"];
    case "session.unarchive":
      return ["session.unarchive"];
    default:
      return [];
  }
}

export function requireProviderCapabilities(capabilities, input) {
  for (const capability of requiredProviderCapabilities(input)) {
    if (!capabilities.includes(capability)) throw new Error(`Provider does not support ${capability}`);
  }
}

export const ProviderAvailabilitySchema = z
  .object({
    status: z.enum(["missing", "unrunnable", "incompatible", "available"]),
    diagnostic: z.string().max(4096).optional(),
  })
  .strict();
