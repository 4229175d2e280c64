// `@getpaseo/protocol/agent-types`, as far as plugins import it (type-only): the payload types
// the hook catalogue defines, and the SDK's timeline and permission-answer types.
export type {
  AgentPermissionRequest,
  AgentSessionConfig,
  McpServerConfig,
  McpServers,
} from "../hooks.generated";
export type { AgentPermissionResponse, AgentTimelineItem } from "../plugin/paseo";
