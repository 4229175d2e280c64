// `@getpaseo/plugin/server/usage`: usage sources (quota windows, balances and details of an
// account) and the helpers for building their reports. Hand-written to match
// js/plugin/usage.js, which follows Paseo's SDK.
import type { ZodType, z } from "zod";
import type { JsonValue } from "../protocol/agent-types";

export type UsageTone = "default" | "ok" | "warning" | "danger";

export interface UsageWindow {
  id: string;
  label: string;
  /** A few characters where space is tight ("5h", "wk"); "" shows the percent alone. */
  shortLabel?: string;
  /** Shown in the usage summary until the user pins windows of their own. */
  summary?: boolean;
  usedPct?: number | null;
  remainingPct?: number | null;
  resetsAt?: string | null;
  runsOutAt?: string | null;
  shortfallPct?: number | null;
  tone?: UsageTone;
}

export interface UsageBalance {
  id: string;
  label: string;
  used?: number | null;
  remaining?: number | null;
  limit?: number | null;
  unit: "usd" | "credits" | "requests" | "tokens";
  resetsAt?: string | null;
  tone?: UsageTone;
}

export interface UsageDetail {
  id: string;
  label: string;
  value: string;
  tone?: UsageTone;
}

export type UsageProblem =
  | { kind: "expired"; expiresAt: string; refreshedBy?: string }
  | { kind: "rejected"; status: number; refreshedBy?: string }
  | { kind: "no_quota"; detail: string };

export type UsageReport =
  | {
      status: "available";
      planLabel?: string;
      windows: UsageWindow[];
      balances?: UsageBalance[];
      details?: UsageDetail[];
    }
  | { status: "unavailable"; problem: UsageProblem }
  | { status: "error"; error: string };

export interface UsageAccount {
  /** Stable across token rotation; [A-Za-z0-9._-]{1,128}. Never a credential or raw email. */
  key: string;
  label?: string;
  /** Harness owning this login, e.g. Codex or OpenCode. */
  harness?: string;
  /** Store locator, opaque to the daemon: what `fetch` receives. */
  input: JsonValue;
}

export declare const UsageScopeSchema: z.ZodDiscriminatedUnion<
  [
    z.ZodObject<{ kind: z.ZodLiteral<"global"> }>,
    z.ZodObject<{
      kind: z.ZodLiteral<"session">;
      provider: z.ZodString;
      model: z.ZodOptional<z.ZodString>;
      env: z.ZodRecord<z.ZodString, z.ZodString>;
    }>,
  ],
  "kind"
>;

export type UsageScope =
  | { kind: "global" }
  | { kind: "session"; provider: string; model?: string; env: Record<string, string> };

export interface UsageSourceRegistration {
  id: string;
  label: string;
  /** When set, discover and fetch only while this agent provider is registered and enabled. */
  provider?: string;
  /** An SVG file, relative to the plugin's folder. */
  icon?: string;
  /** Parses what `fetch` receives. */
  input: ZodType;
  /** Accounts for this scope. The same key in any scope identifies the same account. */
  discover?(scope: UsageScope): Promise<UsageAccount[]>;
  /** Re-reads the login store; never writes it. */
  fetch(input: unknown): Promise<UsageReport>;
  /** The account an input belongs to (older Paseo versions). */
  identify?(input: unknown): Promise<{ key: string; label?: string } | null>;
}

/** A window from a used percentage: `remainingPct` is `max(0, 100 - used)`, null when unknown. */
export declare function windowFromUsedPct(input: {
  id: string;
  label: string;
  shortLabel?: string;
  summary?: boolean;
  utilizationPct: number | null | undefined;
  resetsAt?: string | null;
  tone?: UsageTone;
}): UsageWindow;

/** A window named by its length (604800 s is "weekly", 18000 s "five_hour", else `<n>s`). */
export declare function windowFromReportedDuration(input: {
  durationSeconds: number | null;
  /** Identity and name of a model- or feature-scoped limit. */
  scope?: { id: string; label: string };
  /** Identity and names when the provider reports no positive duration. */
  unknown: { id: string; label: string; shortLabel: string };
  utilizationPct: number | null | undefined;
  resetsAt?: string | null;
  summary?: boolean;
  tone?: UsageTone;
}): UsageWindow;

/** "danger" above 90, "warning" from 70, else "ok"; "default" when unknown. */
export declare function toneFromUsedPct(usedPct: number | null | undefined): UsageTone;
/** "danger" once nothing remains, else "ok"; "default" when unknown. */
export declare function balanceToneFromRemaining(remaining: number | null | undefined): UsageTone;
/** Percentage of `limit` consumed, or null when either is unknown (or the limit is not positive). */
export declare function usedPctOf(used: number | null | undefined, limit: number | null | undefined): number | null;
/** sha256 of `value`, as hex: an account key that is not the raw identifier. */
export declare function hashAccountKey(value: string): string;
export declare function unavailable(problem: UsageProblem): UsageReport;
