// `@getpaseo/protocol/agent-labels`: label helpers of Paseo's protocol package, provided by the
// host at run time (js/protocol/agent-labels.js).

export declare const PARENT_AGENT_ID_LABEL: "paseo.parent-agent-id";
export declare const EXTERNAL_WAIT_ID_LABEL: "paseo.external-wait-id";

export interface AgentLabelSource {
  labels?: Record<string, unknown> | null;
}

/** The trimmed parent agent ID a delegated agent's labels carry, or null. */
export declare function getParentAgentIdFromLabels(labels: Record<string, unknown> | null | undefined): string | null;
export declare function getExternalWaitIdFromLabels(labels: Record<string, unknown> | null | undefined): string | null;
export declare function isDelegatedAgent(agent: AgentLabelSource): boolean;
