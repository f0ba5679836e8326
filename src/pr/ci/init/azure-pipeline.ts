import { docsUrl } from "../../../core/index.ts";
import type { Pins } from "./pins.ts";
import { configureLines, installLine, opencodeConfig, ottoConfig, SANDBOX_LINES, yamlString, type ModelSetup } from "./setup.ts";

/*
 * Azure Pipelines has no event per failed build or per comment for a YAML pipeline, so otto's
 * CI there is two files:
 * - AZURE_JOB_FILE: a jobs template the PR pipeline includes after its build job(s); it runs only
 *   when one of them failed (`failed()`), on a PR build from this repository (not a fork);
 * - AZURE_COMMENTS_FILE: a pipeline of its own, started by an incoming webhook that a service
 *   hook ("Pull request commented on") calls; the hook's payload reaches otto as JSON.
 * Neither has a concurrency group: two runs for one PR can overlap, and otto's state marker on the
 * PR (the head it fixed, the comments it answered) keeps the second from doing the work again.
 * https://learn.microsoft.com/azure/devops/pipelines/yaml-schema/resources-webhooks-webhook
 */

export const AZURE_JOB_FILE = "azure-pipelines.otto-job.yml";
export const AZURE_COMMENTS_FILE = "azure-pipelines.otto.yml";
export const AZURE_TIMEOUT_MINUTES = 60;
/**
 * What the build identity needs on the repository beyond what it has by default (read the code,
 * view builds), in Azure DevOps' permission names (Git Repositories namespace): "Contribute"
 * (push the fix) and "Contribute to pull requests" (comments, replies, otto's state comment).
 */
export const AZURE_BUILD_SERVICE_PERMISSIONS = ["GenericContribute", "PullRequestContribute"] as const;

/** The webhook resource's name: its payload is `parameters.otto`. */
export const WEBHOOK_NAME = "otto";

export interface AzureInput {
  pins: Pins;
  setup: ModelSetup;
  /** The PR pipeline's build job(s) the otto job runs after. */
  dependsOn: string[];
  /** Secret variables (from the variable group), each mapped to the env variable of the same name. */
  secrets: string[];
  secretNotes: string[];
}

/**
 * A PR build checks out the PR's merge commit. OpenCode loads the directory's opencode.json and
 * plugins when it starts, and otto runs a PR's code only in its sandbox: the job starts OpenCode on
 * the PR's target branch, and otto moves the checkout to the PR's branch itself.
 */
const TARGET_BRANCH = [
  '- script: git checkout -q --detach "origin/${SYSTEM_PULLREQUEST_TARGETBRANCH#refs/heads/}"',
  "  displayName: Start from the PR's target branch, not its code",
];

function steps(input: AzureInput, event: string, extraEnv: string[], onPr = false): string[] {
  return [
    "- checkout: self",
    "  # Whole history (otto rebases a fix on a moved branch); no token left in .git/config.",
    "  fetchDepth: 0",
    "  persistCredentials: false",
    ...(onPr ? TARGET_BRANCH : []),
    "- task: UseNode@1",
    "  inputs:",
    "    version: 22.x",
    "- script: |",
    ...SANDBOX_LINES.map((l) => `    ${l}`),
    "  displayName: Sandbox for otto's sessions (bubblewrap)",
    `- script: ${installLine(input.pins)}`,
    "  displayName: Install OpenCode and otto (pinned)",
    "- script: |",
    ...configureLines({
      helperUrl: '"$SYSTEM_COLLECTIONURI"',
      tokenVar: "SYSTEM_ACCESSTOKEN",
      user: "otto",
      username: "otto",
      email: "otto@localhost",
    }).map((l) => `    ${l}`),
    "  displayName: Configure OpenCode, otto and otto's git",
    "  env:",
    `    OPENCODE_CONFIG_JSON: ${yamlString(opencodeConfig(input.setup))}`,
    `    OTTO_CONFIG_JSON: ${yamlString(ottoConfig(input.setup))}`,
    "- script: opencode run --command otto-pr -- ci",
    "  displayName: otto",
    "  env:",
    `    OTTO_CI_EVENT: ${event}`,
    ...extraEnv,
    "    # Azure gives a script the job's token only when it is mapped here.",
    "    SYSTEM_ACCESSTOKEN: $(System.AccessToken)",
    ...input.secretNotes.map((n) => `    # ${n}`),
    ...input.secrets.map((name) => `    ${name}: $(${name})`),
  ];
}

const jobHead = (group: string): string[] => [
  `  timeoutInMinutes: ${AZURE_TIMEOUT_MINUTES}`,
  "  pool:",
  "    vmImage: ubuntu-latest",
  "  variables:",
  "  # The model keys, as secret variables of this variable group.",
  `  - group: ${group}`,
  "  steps:",
];

export function renderAzureJob(input: AzureInput): string {
  return [
    "# otto: fixes a PR's red build. A jobs template: include it in the PR pipeline, after the build:",
    "#   jobs:",
    "#   - template: azure-pipelines.otto-job.yml",
    "#     parameters:",
    `#       dependsOn: [${input.dependsOn.join(", ")}]`,
    `# Written by /otto-pr ci init azure (opencode-otto ${input.pins.otto}); see ${docsUrl("ci.md")}`,
    "parameters:",
    "- name: dependsOn",
    "  type: object",
    `  default: [${input.dependsOn.map(yamlString).join(", ")}]`,
    "- name: variableGroup",
    "  type: string",
    "  default: otto",
    "",
    "jobs:",
    "- job: otto",
    "  displayName: otto fixes the red build",
    "  dependsOn: ${{ parameters.dependsOn }}",
    "  # After a failed build job, on a PR build, never for a fork's PR.",
    "  condition: and(failed(), eq(variables['Build.Reason'], 'PullRequest'), ne(variables['System.PullRequest.IsFork'], 'True'))",
    ...jobHead("${{ parameters.variableGroup }}"),
    ...steps(input, "build_failed", [], true).map((l) => `  ${l}`),
    "",
  ].join("\n");
}

/**
 * The comment pipeline. The payload is the webhook's JSON with every `$(` written `$\u0028` (the
 * same character once parsed): Azure expands `$(name)` macros in a step's env at run time, so a
 * comment holding `$(System.AccessToken)` would otherwise put the token into otto's input.
 */
export function renderAzureComments(input: AzureInput): string {
  return [
    '# otto: answers PR reviewers. A pipeline of its own, started by the service hook "Pull request',
    '# commented on" through the incoming webhook below.',
    `# Written by /otto-pr ci init azure (opencode-otto ${input.pins.otto}); set-up: ${docsUrl("ci.md")}`,
    "trigger: none",
    "pr: none",
    "# With an Exclusive lock check on the variable group, runs take it one after another, in order.",
    "lockBehavior: sequential",
    "",
    "resources:",
    "  webhooks:",
    `  - webhook: ${WEBHOOK_NAME}`,
    "    # The Incoming WebHook service connection (its webhook name is the one the service hook calls).",
    "    connection: otto-comments",
    "    filters:",
    "    - path: eventType",
    "      value: ms.vss-code.git-pullrequest-comment-event",
    "",
    "jobs:",
    "- job: otto",
    "  displayName: otto answers the comment",
    ...jobHead("otto"),
    ...steps(input, "comment", [
      `    OTTO_EVENT_PAYLOAD: \${{ replace(convertToJson(parameters.${WEBHOOK_NAME}), '$(', '$\\u0028') }}`,
    ]).map((l) => `  ${l}`),
    "",
  ].join("\n");
}
