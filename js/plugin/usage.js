// `@getpaseo/plugin/server/usage`: helpers for usage sources (the quota and balance reports a
// plugin registers with `server.registerUsageSource`): the scope schema `discover` receives,
// window and tone helpers, account-key hashing and the `unavailable` report. Follows the
// behaviour of Paseo's SDK (packages/plugin/src/server/usage.ts, MIT).
import { createHash } from "node:crypto";
import { z } from "zod";

export const UsageScopeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("global") }),
  z.object({
    kind: z.literal("session"),
    provider: z.string(),
    model: z.string().optional(),
    env: z.record(z.string(), z.string()),
  }),
]);

export function windowFromUsedPct(input) {
  const usedPct = typeof input.utilizationPct === "number" ? input.utilizationPct : null;
  const window = {
    id: input.id,
    label: input.label,
    usedPct,
    remainingPct: usedPct === null ? null : Math.max(0, 100 - usedPct),
    resetsAt: input.resetsAt ?? null,
  };
  if (input.shortLabel !== undefined) window.shortLabel = input.shortLabel;
  if (input.summary) window.summary = true;
  if (input.tone) window.tone = input.tone;
  return window;
}

const UNITS = [[86400, "day", "d"], [3600, "hour", "h"], [60, "minute", "m"], [1, "second", "s"]];

// A window's name from its length: weekly and five-hour windows have fixed ids, any other
// length is `<seconds>s`, labelled in the largest unit that divides it.
function nameForDuration(seconds) {
  if (seconds === 604800) return { id: "weekly", label: "Weekly", shortLabel: "wk" };
  const [size, word, letter] = UNITS.find(([s]) => seconds % s === 0) ?? UNITS[UNITS.length - 1];
  const amount = seconds / size;
  return { id: seconds === 18000 ? "five_hour" : `${seconds}s`, label: `${amount}-${word}`, shortLabel: `${amount}${letter}` };
}

export function windowFromReportedDuration(input) {
  const seconds = input.durationSeconds;
  const name = seconds !== null && Number.isFinite(seconds) && seconds > 0 ? nameForDuration(seconds) : input.unknown;
  const { scope } = input;
  return windowFromUsedPct({
    id: scope ? `${scope.id}:${name.id}` : name.id,
    label: scope ? `${scope.label} · ${name.label}` : name.label,
    shortLabel: scope ? (name.shortLabel ? `${scope.label} ${name.shortLabel}` : scope.label) : name.shortLabel,
    utilizationPct: input.utilizationPct,
    resetsAt: input.resetsAt,
    summary: input.summary,
    tone: input.tone,
  });
}

export function toneFromUsedPct(usedPct) {
  if (typeof usedPct !== "number") return "default";
  if (usedPct > 90) return "danger";
  return usedPct >= 70 ? "warning" : "ok";
}

export function balanceToneFromRemaining(remaining) {
  if (typeof remaining !== "number") return "default";
  return remaining <= 0 ? "danger" : "ok";
}

export function usedPctOf(used, limit) {
  if (typeof used !== "number" || typeof limit !== "number" || limit <= 0) return null;
  return (used / limit) * 100;
}

export function hashAccountKey(value) {
  return createHash("sha256").update(value).digest("hex");
}

export function unavailable(problem) {
  return { status: "unavailable", problem };
}
