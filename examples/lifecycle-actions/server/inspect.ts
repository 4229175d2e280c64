import type { AgentPermissionRequest, AgentTimelineItem } from "@getpaseo/protocol/agent-types";

/** The text after the latest user message: assistant text and reasoning as is, other items as JSON lines. */
export function latestOutputText(timeline: readonly AgentTimelineItem[]): string {
  let chunks: string[] = [];
  for (const item of timeline) {
    if (item.type === "user_message") {
      chunks = [];
      continue;
    }
    const text = (item as { text?: unknown }).text;
    chunks.push(typeof text === "string" ? text : `${JSON.stringify(item)}\n`);
  }
  return chunks.join("");
}

/** The shell command a permission request asks to run, if any. */
export function shellCommand(request: AgentPermissionRequest): string | null {
  const input = request.input as { command?: unknown; cmd?: unknown } | undefined;
  if (typeof input?.command === "string") return input.command;
  if (typeof input?.cmd === "string") return input.cmd;
  return null;
}
