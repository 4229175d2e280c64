// Plugin code shaped like published third-party plugins (usage trackers, timeline watchers,
// workspace helpers), so the declarations keep accepting what they write against Paseo's SDK.
// Each `@ts-expect-error` line must fail. Never run, only checked.
import type {
  PaseoAgentHandle,
  PaseoAgentTimelineEvent,
  PaseoAgentTimelineHandle,
  PaseoAgentTimelineRefetchOptions,
  PaseoAgentTimelineSubscription,
  PaseoApi,
  PaseoProject,
} from "@getpaseo/client";
import type { AgentRuntimeInfo, AgentTimelineItem, AgentUsage } from "@getpaseo/protocol/agent-types";
import type {
  PluginHookAgent,
  PluginHookContext,
  PluginServerContext,
  PluginTurnOutcome,
} from "@getpaseo/plugin/server";

// A response-speed tracker: one timeline subscription per running turn.
interface ActiveTurn {
  handle: PaseoAgentHandle;
  subscription: PaseoAgentTimelineSubscription;
  model: string | null;
  baseline: AgentUsage | null;
  startedAt: number;
}

const modelFrom = (handle: PaseoAgentHandle): string | null =>
  handle.runtimeInfo?.model ?? handle.current()?.model ?? null;

export class SpeedTracker {
  private readonly active = new Map<string, ActiveTurn>();

  start(agent: PluginHookAgent, turnId: string | null, context: PluginHookContext): void {
    const handle = context.paseo.agents.ref(agent.id);
    const subscription = handle.timeline.subscribe((update) => this.observe(agent.id, update));
    const turn: ActiveTurn = { handle, subscription, model: null, baseline: null, startedAt: Date.now() };
    this.active.set(agent.id, turn);
    void subscription.ready.catch(() => undefined);
    void handle.refresh().then((result) => {
      if (!result) return;
      const info: AgentRuntimeInfo | undefined = result.agent.runtimeInfo;
      turn.model = info?.model ?? result.agent.model ?? turn.model;
      if (!turnId || result.agent.activeTurn?.turnId === turnId) {
        const started = result.agent.activeTurn?.startedAt;
        if (started) turn.startedAt = Date.parse(started);
      }
      turn.baseline = result.agent.lastUsage ?? null;
      const project: string | undefined = result.project?.projectName;
      void project;
    });
  }

  private observe(agentId: string, update: PaseoAgentTimelineEvent): void {
    if (update.agentId !== agentId) return;
    if (update.event.type === "turn_completed") {
      const used: number | undefined = update.event.usage?.contextWindowUsedTokens;
      void used;
    }
    if (update.event.type === "timeline" && update.event.item.type === "assistant_message") {
      const seq = "seq" in update ? update.seq : undefined;
      void [update.event.item.text.length, seq];
    }
  }

  async end(agent: PluginHookAgent, outcome: PluginTurnOutcome): Promise<string | null> {
    const turn = this.active.get(agent.id);
    if (!turn) return null;
    this.active.delete(agent.id);
    try {
      await turn.handle.refresh();
      const usage = turn.handle.lastUsage;
      const cost: number | undefined = usage?.totalCostUsd;
      const window: number | undefined = usage?.contextWindowMaxTokens;
      void [cost, window, modelFrom(turn.handle)];
    } finally {
      turn.subscription();
    }
    return outcome.kind;
  }
}

// A token ledger that watches every live agent.
const subscriptions = new Map<string, PaseoAgentTimelineSubscription>();

function watch(paseo: PaseoApi, agentId: string): void {
  if (subscriptions.has(agentId)) return;
  const subscription = paseo.agents.ref(agentId).timeline.subscribe((payload) => {
    if (payload.event.type === "error") console.error(payload.event.error);
  });
  subscriptions.set(agentId, subscription);
}

export async function track(paseo: PaseoApi): Promise<() => Promise<void>> {
  const unsubscribe = paseo.agents.subscribe((update) => {
    if (update.kind === "upsert") {
      if (update.agent.archivedAt || update.agent.status === "closed") subscriptions.get(update.agent.id)?.();
      else watch(paseo, update.agent.id);
    } else {
      subscriptions.get(update.agentId)?.();
    }
  });
  const page = await paseo.agents.list({ page: { limit: 200 } });
  for (const entry of page.entries) {
    const { agent } = entry;
    const row = { workspaceId: agent.workspaceId ?? null, title: agent.title, model: agent.model, updatedAt: agent.updatedAt };
    void row;
    watch(paseo, agent.id);
  }
  await Promise.all([...subscriptions.values()].map((subscription) => subscription.ready));
  return async () => {
    unsubscribe();
    for (const subscription of subscriptions.values()) await subscription.release();
  };
}

// A task-status store that pages a timeline backwards.
export async function scan(timeline: PaseoAgentTimelineHandle): Promise<AgentTimelineItem[]> {
  const items: AgentTimelineItem[] = [];
  let cursor: PaseoAgentTimelineRefetchOptions["cursor"] = undefined;
  do {
    const page = await timeline.refetch({ direction: cursor ? "before" : "tail", cursor, limit: 200, projection: "canonical" });
    if (page.error) throw new Error(page.error);
    for (const entry of page.entries) {
      if (entry.seqEnd >= 0) items.push(entry.item);
    }
    const epoch: string = page.epoch;
    void epoch;
    const next = page.hasOlder ? page.startCursor : null;
    if (!next || (cursor && next.seq >= cursor.seq)) break;
    cursor = next;
  } while (cursor);
  return items;
}

// A workspace helper: projects, workspaces and a follow-up agent.
export default function contribute(server: PluginServerContext) {
  const removers = [
    server.on("workspace.created", async ({ workspace }, context) => {
      const { projects } = await context.paseo.projects.list();
      const project: PaseoProject | undefined = projects.find((p) => p.projectId === workspace.projectId);
      const label: string = project?.projectDisplayName ?? workspace.name ?? workspace.id;

      const names = new Map<string, string>();
      let cursor: string | undefined;
      do {
        const page = await context.paseo.workspaces.list({ page: { limit: 200, ...(cursor ? { cursor } : {}) } });
        for (const entry of page.entries) names.set(entry.id, entry.title ?? entry.name);
        cursor = page.pageInfo.nextCursor ?? undefined;
      } while (cursor);

      await context.paseo.workspaces.ref(workspace.id).agents.create({
        agentId: "agent-1",
        parent: "agent-0",
        autoArchive: true,
        config: { provider: "codex/gpt-5.4", modeId: "auto" },
        prompt: `Set up ${label}`,
        labels: { "helper.role": "setup" },
      });
    }),
    server.on("agent.turn_started", async ({ agent }, context) => {
      const handle = context.paseo.agents.ref(agent.id);
      const subscription = handle.timeline.subscribe((event) => {
        if (event.event.type === "subscription_restored") void handle.timeline.refetch({ direction: "tail", limit: 100 });
        if (event.event.type === "timeline" && event.event.item.type === "user_message") void event.event.item.text.trim();
      });
      await subscription.ready;
      void subscription.release();
    }),
  ];
  return () => removers.forEach((remove) => remove());
}

// What the SDK types rule out.
export async function rejected(paseo: PaseoApi, handle: PaseoAgentHandle, subscription: PaseoAgentTimelineSubscription) {
  const result = await paseo.projects.list();
  // @ts-expect-error projects.list() answers `projects`, not `entries`
  void result.entries;
  // @ts-expect-error runtimeInfo.model is a string, not a number
  const model: number | undefined = handle.runtimeInfo?.model;
  // @ts-expect-error lastUsage has token counts, not a `tokens` field
  void handle.lastUsage?.tokens;
  // @ts-expect-error `ready` is a promise, not a function
  subscription.ready();
  // @ts-expect-error an agent status is one of the lifecycle statuses
  const closed: boolean = handle.current()?.status === "stopped";
  void [model, closed];
}

// Runtime values of Paseo's packages that published plugins import.
import { defineAttachmentSource, defineRpc as defineRpcForSearch } from "@getpaseo/plugin";
import { ForgeAuthenticationError, ForgeCommandError, computeChecksStatus } from "@getpaseo/plugin/server";
import { getParentAgentIdFromLabels } from "@getpaseo/protocol/agent-labels";
import { z as zForSearch } from "zod";

const issueSearch = defineRpcForSearch({ name: "issues.search", input: zForSearch.object({ query: zForSearch.string() }), output: zForSearch.object({ items: zForSearch.array(zForSearch.unknown()) }) });
export const issueSource = defineAttachmentSource({ id: "issues", title: "Issues", icon: "icon.png", pickerTitle: "Attach", searchPlaceholder: "Search issues", search: issueSearch });
export function classify(error: unknown): string {
  if (error instanceof ForgeAuthenticationError) return `auth: ${error.stderr}`;
  if (error instanceof ForgeCommandError) return `${error.binary} exited ${error.exitCode}`;
  return computeChecksStatus([{ status: "success" }]);
}
export const parentOf = (labels: Record<string, string>): string | null => getParentAgentIdFromLabels(labels);

// agent.turn.after's timeline is always empty (the hook contract deprecates it), but Paseo types
// it as timeline items, and published plugins search it.
import type { PluginServerContext as TurnServer } from "@getpaseo/plugin/server";
export function watchTurns(server: TurnServer) {
  return server.addHook("agent.turn.after", async (event) => {
    const last = event.timeline.find((item) => item.type === "assistant_message");
    return void last;
  });
}
