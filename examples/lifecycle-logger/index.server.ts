import type { PluginServerContext } from "@getpaseo/plugin/server";
import { logHook } from "./server/log";

const EVENTS = [
  "agent.created", "agent.closed", "agent.turn_started", "agent.turn_ended", "agent.permission_requested",
  "agent.permission_resolved", "agent.archived", "workspace.created", "workspace.archived",
] as const;
const BEFORE = ["agent.create", "agent.session_open", "workspace.create"] as const;

export default function contribute(server: PluginServerContext) {
  const removers = [
    ...EVENTS.map((name) => server.on(name, async (event: unknown) => logHook(name, event))),
    ...BEFORE.map((name) => server.before(name, async (input: unknown) => {
      logHook(name, input);
      return undefined;
    })),
  ];
  return () => removers.forEach((remove) => remove());
}
