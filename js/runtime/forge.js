// The forge service methods Paseo's daemon may call, in Paseo's order, and which of them a
// forge provider may leave out: shared by `@getpaseo/plugin/server` (PLUGIN_FORGE_SERVICE_METHODS)
// and the host's registration checks (providers.js), which both load it on first use.
export const FORGE_SERVICE_METHODS = Object.freeze([
  "listPullRequests", "listIssues", "getPullRequest", "getPullRequestHeadRef",
  "getPullRequestCheckoutTarget", "defaultCheckoutRefs", "buildPrLocalBranchName",
  "getCurrentPullRequestStatus", "getPullRequestTimeline", "getCheckDetails",
  "searchIssuesAndPrs", "createPullRequest", "mergePullRequest", "enablePullRequestAutoMerge",
  "disablePullRequestAutoMerge", "isAuthenticated", "invalidate", "dispose",
]);

export const OPTIONAL_FORGE_SERVICE_METHODS = Object.freeze(["defaultCheckoutRefs", "buildPrLocalBranchName", "dispose"]);
