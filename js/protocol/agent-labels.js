// `@getpaseo/protocol/agent-labels`: the label helpers of Paseo's protocol package, which
// plugins import at run time and which Paseo resolves from its own install.

export const PARENT_AGENT_ID_LABEL = "paseo.parent-agent-id";
export const EXTERNAL_WAIT_ID_LABEL = "paseo.external-wait-id";

function label(labels, key) {
  const value = labels?.[key];
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : null;
}

export function getParentAgentIdFromLabels(labels) {
  return label(labels, PARENT_AGENT_ID_LABEL);
}

export function getExternalWaitIdFromLabels(labels) {
  return label(labels, EXTERNAL_WAIT_ID_LABEL);
}

export function isDelegatedAgent(agent) {
  return getParentAgentIdFromLabels(agent?.labels) !== null;
}
