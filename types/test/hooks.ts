// Type-level checks of the declarations: the seed's snippets must compile, and each
// `@ts-expect-error` line must fail (tsc reports an unused one). Never run, only checked.
import { writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineRpc, defineSettings, type PluginServerContext as FromRoot } from "@getpaseo/plugin";
import * as root from "@getpaseo/plugin";
import {
  defineAgentTool,
  defineRpc as defineRpcFromServer,
  type AgentToolDefinition,
  type PluginHookName,
  type PluginServerContext,
  type PluginTurnOutcome,
} from "@getpaseo/plugin/server";

export function contribute(server: PluginServerContext) {
  const removers: Array<() => void> = [];

  // Seed: choose workspace isolation.
  removers.push(server.addHook("workspace.create.before", async ({ request }) => {
    if (request.source.kind !== "directory") {
      return request;
    }
    return { ...request, source: { kind: "worktree", cwd: request.source.path, action: "branch-off" } };
  }));

  // Seed: the waiting hooks with events, early return.
  server.addHook("worktree.create.after", async ({ worktree }) => {
    void writeFile(`${worktree.path}/.env`, "");
  });

  // Worktree requests narrow on kind.
  server.addHook("worktree.create.before", async ({ request }) => {
    if (request.kind === "branch-off") {
      const base: string = request.baseRef;
      return { ...request, branch: `${base}-copy` };
    }
    if (request.kind === "checkout-change-request") {
      const n: number = request.changeRequestNumber;
      void n;
    }
    return undefined;
  });
  // @ts-expect-error repoRoot is a string
  server.addHook("worktree.create.before", async ({ request }) => ({ ...request, repoRoot: 1 }));

  // Seed: change saved configuration.
  server.addHook("agent.create.before", async ({ request }) => {
    if (request.config.provider !== "codex") {
      return request;
    }
    return {
      ...request,
      config: {
        ...request.config,
        providerOptions: { ...request.config.providerOptions, sandbox_mode: "workspace-write", approval_policy: "on-request" },
      },
    };
  });

  // Seed: inject MCP servers.
  server.addHook("agent.open.before", async ({ request }) => {
    if (request.provider !== "codex") return;
    return { ...request, mcpServers: { ...request.mcpServers, company: { type: "http", url: "https://tools.example.com/mcp" } } };
  });

  // @ts-expect-error an http server needs a url
  server.addHook("agent.open.before", async ({ request }) => {
    return { ...request, mcpServers: { bad: { type: "http", command: "x" } } };
  });

  // Seed: follow-up when a turn ends; permission answers.
  server.addHook("agent.turn.after", async (event, context) => {
    if (event.outcome.kind === "canceled") return;
    if (event.outcome.kind === "failed") {
      const message: string = event.outcome.error.message;
      void message;
    }
    const agent = context.paseo.agents.ref(event.agent.id);
    const page = await agent.timeline.refetch({ direction: "tail", limit: 20 });
    const texts = page.entries.map(({ item }) => (item.type === "assistant_message" ? item.text : ""));
    if (texts.some((t) => /out of credits/i.test(t))) await agent.send("Try again.");
    context.signal.throwIfAborted();
  });
  server.addHook("agent.permission.before", async (event, context) => {
    const agent = context.paseo.agents.ref(event.agent.id);
    await agent.respondToPermission({ requestId: event.request.id, response: { behavior: "deny", message: "no" } });
    // @ts-expect-error behavior is allow or deny
    await agent.respondToPermission({ requestId: event.request.id, response: { behavior: "maybe" } });
    await agent.reload({ requestId: "reload-notes" });
    await agent.refresh();
  });
  server.addHook("agent.permission.after", async ({ agent, requestId, resolution }) => {
    const behavior: "allow" | "deny" = resolution.behavior;
    void [agent.parentAgentId, requestId, behavior];
  });

  // @ts-expect-error addHook takes only the new names
  server.addHook("agent.session_open", async () => {});
  // @ts-expect-error handlers must be async
  server.addHook("agent.create.after", ({ agent }) => { void agent; });
  // @ts-expect-error notifications return nothing
  server.addHook("agent.close.after", async () => 1);
  // @ts-expect-error agentId is a string
  server.addHook("agent.open.before", async ({ request }) => {
    return { ...request, agentId: 1 };
  });

  // The older generation.
  server.on("agent.turn_ended", (event) => {
    const outcome: PluginTurnOutcome = event.outcome;
    void outcome;
  });
  server.before("agent.session_open", ({ request }) => ({ ...request, env: { ...request.env, X: "1" } }));
  // @ts-expect-error on takes only the old names
  server.on("agent.create.after", async () => {});
  // @ts-expect-error before takes only the old request names
  server.before("agent.created", async () => {});

  // RPC and settings.
  const echo = defineRpc({ name: "echo", input: z.object({ text: z.string() }), output: z.object({ length: z.number() }) });
  server.handle(echo, async ({ text }) => ({ length: text.length }));
  // @ts-expect-error the output schema wants a number
  server.handle(echo, async ({ text }) => ({ length: text }));
  const prefs = server.registerSettings(defineSettings({ id: "prefs", scope: "host", version: 1, schema: z.object({ on: z.boolean() }) }));
  void prefs.read().then((state) => (state.status === "ready" ? state.values.on : false));
  void defineRpcFromServer;

  // SDK calls the seed shows.
  void server.paseo.agents.create({ config: { provider: "codex/gpt-5.4" }, cwd: "/projects/shop", labels: { "notes/enabled": "true" } });
  void server.secrets.get("token");
  void server.presence().then((p) => p.userPresent);

  return () => removers.forEach((remove) => remove());
}

// Tools: input inferred from the zod schema.
export const tool: AgentToolDefinition = defineAgentTool({
  name: "count_words",
  description: "Counts words.",
  input: z.object({ text: z.string() }),
  async execute({ text }, { agent, signal }) {
    signal.throwIfAborted();
    // @ts-expect-error text is a string
    const wrong: number = text;
    void wrong;
    return { text: `${agent.cwd}: ${text.split(/\s+/).length}` };
  },
});
defineAgentTool({
  name: "bad_result",
  description: "x",
  input: z.object({}),
  // @ts-expect-error text must be a string
  execute: () => ({ text: 1 }),
});

// `@getpaseo/plugin` re-exports the server types, not the server-only values.
export const same: (s: FromRoot) => PluginServerContext = (s) => s;
// @ts-expect-error defineAgentTool is a value of @getpaseo/plugin/server only
void root.defineAgentTool;
export const names: PluginHookName[] = ["agent.open.before", "worktree.create.after"];
