import { basename, dirname, join } from "node:path";
import type { PluginServerContext } from "@getpaseo/plugin/server";

// The seed's worktree placement example: /home/me/src/paseo + feature/x → /home/me/src/paseo.feature-x
export default function contribute(server: PluginServerContext) {
  server.addHook("worktree.create.before", async ({ request }) => ({
    ...request,
    path: join(
      dirname(request.sourceCheckout),
      `${basename(request.sourceCheckout)}.${request.branch.replaceAll("/", "-")}`,
    ),
  }));
  return () => {};
}
