// The brand that marks agent tool definitions (from `defineAgentTool`): they travel by
// reference inside the isolate and as metadata (`[TOOL].metadata`) to the host.
export const TOOL = Symbol("paseo.agentTool");
