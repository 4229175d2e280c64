import type { PluginServerContext } from "@getpaseo/plugin/server";
import { latestOutputText, shellCommand } from "./server/inspect";

// Written against the older registration API (server.on / server.before), as published plugins are.
export default function contribute(server: PluginServerContext) {
  const removers = [
    server.before("workspace.create", async ({ request }) => {
      if (request.title !== "Isolated lifecycle example" || request.source.kind !== "directory") return;
      return { ...request, source: { kind: "worktree", cwd: request.source.path, action: "branch-off", branchName: "lifecycle-example" } };
    }),
    server.on("agent.turn_ended", async (event, context) => {
      if (event.outcome.kind === "canceled") return;
      const agent = context.paseo.agents.ref(event.agent.id);
      const page = await agent.timeline.refetch({ direction: "tail", limit: 20 });
      const text = latestOutputText(page.entries.map(({ item }: { item: any }) => item));
      if (/out of credits/i.test(text)) {
        await agent.send("Try again.");
      }
    }),
    server.on("agent.permission_requested", async (event, context) => {
      const command = shellCommand(event.request);
      if (command === null) return;
      const agent = context.paseo.agents.ref(event.agent.id);
      if (/\brm\s+-rf\b/.test(command)) {
        await agent.respondToPermission({
          requestId: event.request.id,
          response: { behavior: "deny", message: "Recursive deletion is blocked." },
        });
        return;
      }
      if (command.trim() === "git status") {
        await agent.respondToPermission({ requestId: event.request.id, response: { behavior: "allow" } });
      }
    }),
    server.before("agent.create", async ({ request }) => ({
      ...request,
      env: { ...request.env, PASEO_HOOK_CREATE_EXAMPLE: "created" },
    })),
    server.before("agent.create", async ({ request }) => {
      if (request.config.provider !== "codex") return;
      return {
        ...request,
        config: { ...request.config, provider: "claude", model: "haiku", modeId: "default", providerOptions: undefined },
      };
    }),
    server.before("agent.session_open", async ({ request }) => ({
      ...request,
      env: { ...request.env, PASEO_HOOK_OPEN_EXAMPLE: "opened" },
    })),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
