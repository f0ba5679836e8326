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

/**
 * The token otto's git pushes with and its API calls use: a PAT mapped as OTTO_ADO_PAT wins, as in
 * otto's config (src/pr/ci/context.ts), else the job's System.AccessToken.
 */
const PUSH_TOKEN = "${OTTO_ADO_PAT:-$SYSTEM_ACCESSTOKEN}";

/**
 * git's author and committer are whoever pushes: the identity the push token authenticates as,
 * which Azure DevOps names in connectionData (`authenticatedUser`): "<project> Build Service
 * (<organization>)" for System.AccessToken, the PAT's user for a PAT. Build.RequestedFor would be
 * the person whose push started the build, not who pushes the fix. The address is the identity's
 * account when it is one (a person's sign-in address); a build identity has none, so its id at the
 * organization's host stands in, unique to it.
 * https://learn.microsoft.com/azure/devops/pipelines/build/variables (Build.RequestedFor),
 * connectionData: the identity behind the request's credentials.
 */
export const AZURE_IDENTITY_LINES = [
  `me=\`curl -fsS -u ":${PUSH_TOKEN}" "\${SYSTEM_COLLECTIONURI}_apis/connectionData?api-version=7.1-preview"\` || {`,
  '  echo "otto: Azure DevOps did not say who the job\'s token is (connectionData): check that System.AccessToken is mapped into this step."; exit 1; }',
  `id=\`jq -r '.authenticatedUser.id // ""' <<<"$me"\``,
  `name=\`jq -r '.authenticatedUser.providerDisplayName // ""' <<<"$me"\``,
  `account=\`jq -r '.authenticatedUser.properties.Account["$value"] // ""' <<<"$me"\``,
  'host="${SYSTEM_COLLECTIONURI#*://}"; host="${host%%/*}"',
  'case "$account" in *@*) email="$account" ;; *) email="$id@$host" ;; esac',
  'git config --global user.name "$name"',
  'git config --global user.email "$email"',
];

/** The webhook resource's alias in the YAML: its payload is `parameters.otto`. */
export const WEBHOOK_NAME = "otto";
/** The Incoming WebHook service connection the comment pipeline listens to. */
export const WEBHOOK_CONNECTION = "otto-comments";
/** The comment pipeline's own variable group, the one its Exclusive lock check sits on. */
export const LOCK_GROUP = "otto-comments-lock";

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

/** The comment pipeline's payload, as the otto step and the gate read it (see renderAzureComments). */
const PAYLOAD_ENV = `OTTO_EVENT_PAYLOAD: \${{ replace(convertToJson(parameters.${WEBHOOK_NAME}), '$(', '$\\u0028') }}`;

/** Set by the gate when the event is nothing otto acts on; every later step is skipped. */
const SKIP = "OTTO_SKIP";
const UNLESS_SKIPPED = `condition: and(succeeded(), ne(variables['${SKIP}'], 'true'))`;

/**
 * The comment pipeline's first step, before anything is installed: every "commented on" event
 * starts this job, otto's own replies and state comments included, so those end here in seconds,
 * as do comments on another repository and comments that do not address otto (no word "otto",
 * e.g. `/otto fix` or `@otto`, and not in a thread otto wrote in). The payload can be forged: the
 * thread is read from this pipeline's own repository by the ids it names (never from a URL in
 * it, which would take the token elsewhere), and a forgery that reaches otto is checked again
 * there (the comment is read back from the API). No payload value is printed: a printed `##vso[`
 * line would be a logging command.
 */
const GATE = [
  "- script: |",
  `    repo=\`jq -r '.resource.pullRequest.repository.id // ""' <<<"$OTTO_EVENT_PAYLOAD"\``,
  `    author=\`jq -r '.resource.comment.author.id // ""' <<<"$OTTO_EVENT_PAYLOAD"\``,
  `    content=\`jq -r '.resource.comment.content // ""' <<<"$OTTO_EVENT_PAYLOAD"\``,
  `    pr=\`jq -r '.resource.pullRequest.pullRequestId // "" | tostring' <<<"$OTTO_EVENT_PAYLOAD"\``,
  `    thread=\`jq -r '.resource.comment._links.threads.href // "" | capture("/threads/(?<id>[0-9]+)$").id // ""' <<<"$OTTO_EVENT_PAYLOAD" || true\``,
  "    # The build identity otto posts as (connectionData: the token's own identity).",
  `    me=\`curl -fsS -H "Authorization: Bearer $SYSTEM_ACCESSTOKEN" "\${SYSTEM_COLLECTIONURI}_apis/connectionData?api-version=7.1-preview" | jq -r '.authenticatedUser.id // ""'\` || me=""`,
  '    if [ -z "$repo" ] || [ "${repo,,}" != "${BUILD_REPOSITORY_ID,,}" ]; then',
  '      echo "otto: the comment is not on this pipeline\'s repository; nothing to do."',
  `      echo "##vso[task.setvariable variable=${SKIP}]true"`,
  '    elif [ -n "$me" ] && [ "${author,,}" = "${me,,}" ]; then',
  '      echo "otto: the comment is otto\'s own; nothing to do."',
  `      echo "##vso[task.setvariable variable=${SKIP}]true"`,
  '    elif [ -n "$me" ] && ! grep -qiE \'(^|[^[:alnum:]_])otto([^[:alnum:]_]|$)\' <<<"$content" && ! {',
  '      [[ "$pr" =~ ^[0-9]+$ && "$thread" =~ ^[0-9]+$ ]] &&',
  '      curl -fsS -H "Authorization: Bearer $SYSTEM_ACCESSTOKEN" "${SYSTEM_COLLECTIONURI}${SYSTEM_TEAMPROJECTID}/_apis/git/repositories/${BUILD_REPOSITORY_ID}/pullRequests/$pr/threads/$thread?api-version=7.1" |',
  `        jq -e --arg me "\${me,,}" '[.comments[]?.author.id // "" | ascii_downcase] | index($me) != null' >/dev/null; }; then`,
  '      echo "otto: the comment does not address otto (no word otto in it, not in a thread otto wrote in); nothing to do."',
  `      echo "##vso[task.setvariable variable=${SKIP}]true"`,
  "    fi",
  "  displayName: Skip otto's own comments, other repositories' and those not for otto (before any install)",
  "  env:",
  `    ${PAYLOAD_ENV}`,
  "    SYSTEM_ACCESSTOKEN: $(System.AccessToken)",
];

function steps(input: AzureInput, event: string, options: { onPr?: boolean; gate?: boolean } = {}): string[] {
  const groups: string[][] = [
    [
      "- checkout: self",
      "  # Whole history (otto rebases a fix on a moved branch); no token left in .git/config.",
      "  fetchDepth: 0",
      "  persistCredentials: false",
    ],
    ...(options.onPr ? [TARGET_BRANCH] : []),
    ["- task: UseNode@1", "  inputs:", "    version: 22.x"],
    ["- script: |", ...SANDBOX_LINES.map((l) => `    ${l}`), "  displayName: Sandbox for otto's sessions (bubblewrap)"],
    [`- script: ${installLine(input.pins)}`, "  displayName: Install OpenCode and otto (pinned)"],
    [
      "- script: |",
      ...configureLines({
        helperUrl: '"$SYSTEM_COLLECTIONURI"',
        token: PUSH_TOKEN,
        user: "otto",
        identity: AZURE_IDENTITY_LINES,
      }).map((l) => `    ${l}`),
      "  displayName: Configure OpenCode, otto and otto's git",
      "  env:",
      `    OPENCODE_CONFIG_JSON: ${yamlString(opencodeConfig(input.setup))}`,
      `    OTTO_CONFIG_JSON: ${yamlString(ottoConfig(input.setup))}`,
      "    # Who pushes, for git's author and committer (AZURE_IDENTITY_LINES).",
      "    SYSTEM_ACCESSTOKEN: $(System.AccessToken)",
    ],
    [
      "- script: opencode run --command otto-pr -- ci",
      "  displayName: otto",
      "  # otto prints text from the PR (authors, comments, check names): whatever it holds, this step",
      "  # runs no logging command but the harmless ones and sets no variable.",
      "  target:",
      "    commands: restricted",
      "    settableVariables: none",
      "  env:",
      `    OTTO_CI_EVENT: ${event}`,
      ...(options.gate ? [`    ${PAYLOAD_ENV}`] : []),
      "    # Azure gives a script the job's token only when it is mapped here.",
      "    SYSTEM_ACCESSTOKEN: $(System.AccessToken)",
      ...input.secretNotes.map((n) => `    # ${n}`),
      ...input.secrets.map((name) => `    ${name}: $(${name})`),
    ],
  ];
  if (!options.gate) return groups.flat();
  return [...GATE, ...groups.flatMap((g) => [...g, `  ${UNLESS_SKIPPED}`])];
}

const jobHead = (group: string, lock?: string): string[] => [
  `  timeoutInMinutes: ${AZURE_TIMEOUT_MINUTES}`,
  "  pool:",
  "    vmImage: ubuntu-latest",
  "  variables:",
  "  # The model keys, as secret variables of this variable group.",
  `  - group: ${group}`,
  ...(lock
    ? [
        "  # This pipeline's own group, for its Exclusive lock check: runs take turns, in order. Never a",
        `  # lock on ${group}: the PR builds use that group too and would queue behind every comment.`,
        `  - group: ${lock}`,
      ]
    : []),
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
    ...steps(input, "build_failed", { onPr: true }).map((l) => `  ${l}`),
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
    `# With an Exclusive lock check on the variable group ${LOCK_GROUP}, runs take it one after another, in order.`,
    "lockBehavior: sequential",
    "",
    "resources:",
    "  webhooks:",
    `  - webhook: ${WEBHOOK_NAME}`,
    "    # The Incoming WebHook service connection. Its webhook name (the one the service hook calls) is",
    "    # not written here: anyone who knows it can start this pipeline. The payload is checked anyway:",
    "    # the gate below and otto take only this repository's comments and read each back from the API.",
    `    connection: ${WEBHOOK_CONNECTION}`,
    "    filters:",
    "    - path: eventType",
    "      value: ms.vss-code.git-pullrequest-comment-event",
    "",
    "jobs:",
    "- job: otto",
    "  displayName: otto answers the comment",
    ...jobHead("otto", LOCK_GROUP),
    ...steps(input, "comment", { gate: true }).map((l) => `  ${l}`),
    "",
  ].join("\n");
}
