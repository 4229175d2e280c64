// The Node side of `scripts/bench-vs-node`'s scale table: N plugins in a Paseo-shaped Node host
// (one forked child per plugin, the anchor's child.cjs evaluating the plugin's esbuild CommonJS
// bundle), and one request through all N in order, each child's answer the next one's request,
// as a daemon with N plugins on a waiting hook runs it. Prints one JSON line, with the field
// names `paseo bench` uses.
//
// usage: node scripts/node-chain.mjs NODE_HOST_DIR PLUGIN_DIR [--plugins N] [--iterations M]
//   NODE_HOST_DIR: a copy of shared/bench/node-host with its dependencies installed (esbuild).
import { fork } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [hostDir, dir, ...rest] = process.argv.slice(2);
const opt = (k, d) => { const i = rest.indexOf(k); return i >= 0 ? Number(rest[i + 1]) : d; };
const plugins = opt("--plugins", 1), iterations = opt("--iterations", 2000);
const esbuild = createRequire(join(hostDir, "package.json"))("esbuild");

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const entry = ["index.server.ts", "index.server.tsx"].map((f) => join(dir, f)).find(existsSync);
const bundle = (await esbuild.build({ entryPoints: [entry], bundle: true, format: "cjs", platform: "node", target: "node20",
  external: ["@getpaseo/plugin", "@getpaseo/plugin/*", "zod"], write: false, logLevel: "silent" })).outputFiles[0].text;

// A child and its pending calls, answered by requestId.
function start() {
  return new Promise((resolve, reject) => {
    const child = fork(join(hostDir, "child.cjs"), [], { serialization: "advanced", stdio: ["ignore", "ignore", "ignore", "ipc"] });
    const pending = new Map();
    let seq = 0;
    const call = (name, input) => new Promise((res, rej) => {
      const requestId = ++seq;
      pending.set(requestId, { res, rej });
      child.send({ type: "hook", requestId, kind: "before", name, input });
    });
    child.on("message", (m) => {
      if (m.type === "ready") return resolve({ child, call });
      const p = pending.get(m.requestId);
      pending.delete(m.requestId);
      m.type === "result" ? p.res(m.output) : p.rej(new Error(m.error));
    });
    child.on("error", reject);
    child.send({ type: "initialize", bundle });
  });
}

const t0 = performance.now();
const children = [];
for (let i = 0; i < plugins; i++) children.push(await start());
const coldMs = (performance.now() - t0) / plugins;
const request = { agentId: "agent-123", workspaceId: "workspace-456", provider: "codex", cwd: "/projects/shop", title: "Workspace notes",
  labels: { "notes/enabled": "true", tools: "on" }, tools: [], mcpServers: {}, reason: "resume", purpose: "interactive", env: { COMPANY_ENV: "development" } };
const chain = async () => { let r = request; for (const c of children) r = await c.call("agent.open.before", { request: r }); return r; };
const runs = Math.max(50, Math.min(iterations, Math.floor(200000 / plugins)));
for (let i = 0; i < 200; i++) await chain();
const lat = [];
for (let i = 0; i < runs; i++) { const s = performance.now(); await chain(); lat.push((performance.now() - s) * 1000); }
const rss = rssKb(process.pid) + children.reduce((a, c) => a + rssKb(c.child.pid), 0);
for (const c of children) c.child.send({ type: "shutdown" });
console.log(JSON.stringify({
  host: "node-child-process", node: process.version, plugins,
  cold_start_ms_per_plugin: +coldMs.toFixed(2),
  chain_rtt_us_p50: +pct(lat, 0.5).toFixed(1), chain_rtt_us_p99: +pct(lat, 0.99).toFixed(1),
  chain_us_per_plugin_p50: +(pct(lat, 0.5) / plugins).toFixed(1),
  rss_kb_process: rss,
}));
process.exit(0);
