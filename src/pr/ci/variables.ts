/*
 * Every environment variable the CI job reads, in one place (docs/ci.md "Events and variables").
 * GitHub Actions sets its own (https://docs.github.com/en/actions/reference/variables-reference);
 * Azure Pipelines maps its predefined variables to upper case with `.` as `_`
 * (https://learn.microsoft.com/en-us/azure/devops/pipelines/build/variables). OTTO_CI_EVENT and
 * OTTO_EVENT_PAYLOAD are otto's own: the pipeline YAML (`/otto-pr ci init`) sets them.
 */

export const GITHUB_VARS = {
  /** "true" in every GitHub Actions job. */
  actions: "GITHUB_ACTIONS",
  eventName: "GITHUB_EVENT_NAME",
  /** The webhook payload of the event, as a JSON file. */
  eventPath: "GITHUB_EVENT_PATH",
  /** `owner/repo`. */
  repository: "GITHUB_REPOSITORY",
  /** The REST API base (https://api.github.com, or GitHub Enterprise Server's /api/v3). */
  apiUrl: "GITHUB_API_URL",
  /** The web host (https://github.com). */
  serverUrl: "GITHUB_SERVER_URL",
  token: "GITHUB_TOKEN",
} as const;

export const AZURE_VARS = {
  /** otto's own: `build_failed` (the job after a failed PR build) or `comment` (a service hook). */
  event: "OTTO_CI_EVENT",
  /** otto's own: the service hook's JSON payload (an incoming-webhook resource's `$(parameters...)`). */
  payload: "OTTO_EVENT_PAYLOAD",
  /** Build.Reason: `PullRequest` for a PR validation build. */
  buildReason: "BUILD_REASON",
  pullRequestId: "SYSTEM_PULLREQUEST_PULLREQUESTID",
  /** System.PullRequest.IsFork: `True` for a PR from a fork. */
  isFork: "SYSTEM_PULLREQUEST_ISFORK",
  /** The PR's source commit the build ran on. */
  sourceCommitId: "SYSTEM_PULLREQUEST_SOURCECOMMITID",
  /** https://dev.azure.com/<org>/ (or an Azure DevOps Server collection URL). */
  collectionUri: "SYSTEM_COLLECTIONURI",
  teamProject: "SYSTEM_TEAMPROJECT",
  teamProjectId: "SYSTEM_TEAMPROJECTID",
  repositoryName: "BUILD_REPOSITORY_NAME",
  repositoryId: "BUILD_REPOSITORY_ID",
  buildId: "BUILD_BUILDID",
  /** System.AccessToken, mapped into the job's env by the YAML (it is a secret: never set implicitly). */
  accessToken: "SYSTEM_ACCESSTOKEN",
} as const;

/** The values OTTO_CI_EVENT takes on Azure Pipelines. */
export const AZURE_EVENTS = ["build_failed", "comment"] as const;
