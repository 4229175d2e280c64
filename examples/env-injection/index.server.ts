import type { PluginServerContext } from "@getpaseo/plugin/server";

// The seed's "inject environment variables on every session opening" example.
export default function contribute(server: PluginServerContext) {
  server.addHook("agent.open.before", async ({ request }) => {
    return {
      ...request,
      env: {
        ...request.env,
        COMPANY_ENV: "development",
      },
    };
  });
  return () => {};
}
