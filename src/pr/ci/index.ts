/** otto's PR work as one CI job per event, its state in a comment on the PR (docs/ci.md). */
export { runCi, type CiInput, type CiResult, type CiRuntime } from "./run-ci.ts";
export { readCiEvent, type CiPlatform } from "./read-event.ts";
export { githubEvent, readGithubEvent } from "./github-event.ts";
export { readAzureEvent, azureCollection, type AzureCollection } from "./azure-event.ts";
export { commentCommand, type CiEvent, type CommentCommand, type EventComment } from "./event.ts";
export { CiState, STATE_MARKER, findState, parseState, renderState, stateOf, withState, type FoundState } from "./state.ts";
export { AZURE_EVENTS, AZURE_VARS, GITHUB_VARS } from "./variables.ts";
export { inertLog } from "./inert.ts";
