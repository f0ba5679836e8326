import { docsUrl } from "../../../core/index.ts";
import type { Pins } from "./pins.ts";
import { configureLines, indent, installLine, opencodeConfig, ottoConfig, SANDBOX_LINES, yamlString, type ModelSetup } from "./setup.ts";

/*
 * `.github/workflows/otto.yml`, written as a TS function rather than a text template: the values
 * (workflow names, versions, secret names, models) need YAML quoting and the trigger list depends
 * on them, and a function is tested as it is written (test/unit/pr/ci-init, with GitHub's parser).
 *
 * Least privilege: nothing at the top, and the job gets exactly what otto uses: contents (push the
 * fix to the PR's branch), pull-requests (comments, replies, the state marker), checks and statuses
 * (read the failed checks: https://docs.github.com/en/rest/commits/statuses needs statuses: read),
 * actions: read (the failed run's logs), write only with pr.flakes.rerun, which re-runs every red
 * head otto cannot reproduce (https://docs.github.com/en/rest/actions/workflow-runs#re-run-failed-jobs-from-a-workflow-run).
 * Without it the one re-run after an infrastructure failure or a known flake is refused and otto
 * asks a person to re-run, as on Azure DevOps without "Queue builds".
 * Never `pull_request_target`, and no fork's code is checked out: the job's `if:` takes only PRs
 * whose head is in this repository, and comments only from people with a role in it.
 */

/**
 * Third-party actions pinned by commit (a tag can be moved); the comment names the release, each
 * SHA read from the action's own repository at that tag. create-github-app-token 3 takes the
 * legacy `app-id` input still (it prefers `client-id`, and logs a deprecation note for `app-id`).
 */
export const ACTIONS = {
  checkout: "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1",
  setupNode: "actions/setup-node@820762786026740c76f36085b0efc47a31fe5020 # v7.0.0",
  appToken: "actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3 # v3.1.1",
} as const;

/** The job's permissions by default, exactly: the CI e2e gives the fake GitHub these and nothing more. */
export const JOB_PERMISSIONS = {
  contents: "write",
  "pull-requests": "write",
  checks: "read",
  statuses: "read",
  actions: "read",
} as const;

/** `pr.flakes.open_issue`: a flaky failure's GitHub issue needs this one more. */
export const ISSUE_PERMISSION = { issues: "write" } as const;
/** `pr.flakes.rerun`: re-running failed jobs needs actions: write. */
export const RERUN_PERMISSION = { actions: "write" } as const;

/** What the repository's config turns on that needs more than JOB_PERMISSIONS. */
export interface PermissionOptions {
  /** `pr.flakes.open_issue`. */
  openIssues?: boolean;
  /** `pr.flakes.rerun`. */
  rerun?: boolean;
}

/** The job's permissions: JOB_PERMISSIONS, raised by what the repository's config turns on. */
export function jobPermissions(options: PermissionOptions = {}): Record<string, string> {
  return { ...JOB_PERMISSIONS, ...(options.rerun ? RERUN_PERMISSION : {}), ...(options.openIssues ? ISSUE_PERMISSION : {}) };
}

/**
 * The App token's `permission-*` inputs: the installation token gets only what the job's token
 * would (never Workflows, nor anything else the App was granted).
 * https://github.com/actions/create-github-app-token#permission-permission-name
 */
export function appTokenPermissions(options: PermissionOptions): string[] {
  return Object.entries(jobPermissions(options)).map(([k, v]) => `permission-${k}: ${v}`);
}

/** The commenters whose events start the job (otto's own trust check still decides what it does). */
export const TRUSTED_ASSOCIATIONS = ["OWNER", "MEMBER", "COLLABORATOR"] as const;
const ROLE = `fromJSON('${JSON.stringify(TRUSTED_ASSOCIATIONS)}')`;

/**
 * Who wrote otto's comments when the token cannot read `GET /user` (installation tokens answer
 * 403): the App's bot when the workflow minted an App token, the repository variable
 * OTTO_BOT_LOGIN when set, `github-actions[bot]` when the job uses its own token. Empty for a
 * personal token in OTTO_GITHUB_TOKEN, whose `/user` answers.
 */
export const BOT_LOGIN =
  "${{ steps.app-token.outputs.app-slug && format('{0}[bot]', steps.app-token.outputs.app-slug) || secrets.OTTO_GITHUB_TOKEN != '' && vars.OTTO_BOT_LOGIN || secrets.OTTO_GITHUB_TOKEN == '' && 'github-actions[bot]' || '' }}";

/** Which token the job uses: otto requires OTTO_BOT_LOGIN with a machine account's (`machine`) and ignores it otherwise. */
export const TOKEN_KIND = "${{ steps.app-token.outputs.token && 'app' || secrets.OTTO_GITHUB_TOKEN != '' && 'machine' || 'job' }}";

export const TIMEOUT_MINUTES = 60;

/**
 * git's author and committer are whoever pushes: the App's bot, the machine account, or
 * github-actions[bot], each with its noreply address (`<id>+<login>@users.noreply.github.com`,
 * the id read from the API: https://docs.github.com/en/account-and-profile/reference/email-addresses-reference).
 */
export const GITHUB_IDENTITY_LINES = [
  'if [ -n "$APP_SLUG" ]; then',
  '  login="$APP_SLUG[bot]"; id=`curl -fsS "$GITHUB_API_URL/users/$APP_SLUG%5Bbot%5D" | jq -r .id`',
  'elif [ -n "$MACHINE_TOKEN" ]; then',
  '  login="$OTTO_BOT_LOGIN"; id=`curl -fsS -H "Authorization: Bearer $MACHINE_TOKEN" "$GITHUB_API_URL/user" | jq -r .id`',
  "else",
  "  login='github-actions[bot]'; id=41898282",
  "fi",
  'git config --global user.name "$login"',
  'git config --global user.email "$id+$login@users.noreply.github.com"',
];

export interface GithubWorkflowInput {
  pins: Pins;
  setup: ModelSetup;
  /** Workflow names `workflow_run` listens to: the repository's CI. */
  workflows: string[];
  /** Also listen to `check_suite` (CI outside GitHub Actions that reports checks). */
  checkSuites: boolean;
  /** Secret names, each passed as the environment variable of the same name. */
  secrets: string[];
  /** Notes written as comments above the secrets (placeholders, OAuth-only providers). */
  secretNotes: string[];
  /** `pr.flakes.open_issue` is on: the job may open issues. */
  openIssues?: boolean;
  /** `pr.flakes.rerun` is on: the job may re-run failed jobs (actions: write). */
  rerun?: boolean;
}

/** The PR number, whatever the event: one concurrency group per PR across all of them. */
const PR_NUMBER = [
  "github.event.workflow_run.pull_requests[0].number",
  "github.event.check_suite.pull_requests[0].number",
  "github.event.pull_request.number",
  "github.event.issue.number",
  "github.run_id",
].join(" || ");

function jobCondition(checkSuites: boolean): string[] {
  const lines = [
    "# A failed CI run of a PR whose branch is in this repository (fork PRs have no pull_requests here).",
    "(github.event_name == 'workflow_run' && github.event.workflow_run.conclusion == 'failure'",
    "  && github.event.workflow_run.head_repository.full_name == github.repository",
    "  && github.event.workflow_run.pull_requests[0] != null)",
  ];
  if (checkSuites) {
    lines.push(
      "# A failed check suite of another CI app (GitHub Actions' own come through workflow_run).",
      "|| (github.event_name == 'check_suite' && github.event.check_suite.conclusion == 'failure'",
      "  && github.event.check_suite.app.slug != 'github-actions'",
      "  && github.event.check_suite.pull_requests[0] != null)",
    );
  }
  lines.push(
    "# A comment or review on a PR from this repository by someone with a role in it, never otto",
    "# (a bot, or the machine account in OTTO_BOT_LOGIN); a review only with a body (an approval",
    "# without one has nothing to answer; GitHub's null equals '').",
    "|| (github.event_name == 'pull_request_review_comment'",
    `  && contains(${ROLE}, github.event.comment.author_association)`,
    "  && github.event.pull_request.head.repo.full_name == github.repository",
    "  && github.event.sender.type != 'Bot' && github.event.sender.login != vars.OTTO_BOT_LOGIN)",
    "|| (github.event_name == 'pull_request_review'",
    `  && contains(${ROLE}, github.event.review.author_association)`,
    "  && github.event.review.body != ''",
    "  && github.event.pull_request.head.repo.full_name == github.repository",
    "  && github.event.sender.type != 'Bot' && github.event.sender.login != vars.OTTO_BOT_LOGIN)",
    "# A PR conversation comment starting with /otto (/otto fix, /otto answer) by someone with a role",
    "# in the repository; otto reads the PR, skips a fork and checks the author's permission itself.",
    "|| (github.event_name == 'issue_comment' && github.event.issue.pull_request",
    `  && contains(${ROLE}, github.event.comment.author_association)`,
    "  && startsWith(github.event.comment.body, '/otto ')",
    "  && github.event.sender.type != 'Bot' && github.event.sender.login != vars.OTTO_BOT_LOGIN)",
  );
  return lines;
}

export function renderGithubWorkflow(input: GithubWorkflowInput): string {
  const { pins, setup } = input;
  const permissions: PermissionOptions = { openIssues: input.openIssues === true, rerun: input.rerun === true };
  const triggers = [
    "  # The repository's CI: otto looks at a run when it completes (it acts on failures only).",
    "  workflow_run:",
    `    workflows: [${input.workflows.map(yamlString).join(", ")}]`,
    "    types: [completed]",
    ...(input.checkSuites
      ? ["  # CI that reports through the Checks API from outside GitHub Actions.", "  check_suite:", "    types: [completed]"]
      : []),
    "  pull_request_review_comment:",
    "    types: [created]",
    "  pull_request_review:",
    "    types: [submitted]",
    "  issue_comment:",
    "    types: [created]",
  ];
  const condition = jobCondition(input.checkSuites);
  const secretEnv = input.secrets.map((name) => `          ${name}: \${{ secrets.${name} }}`);
  return [
    "# otto: fixes this repository's red PR checks and answers PR reviewers, one job per event.",
    `# Written by /otto-pr ci init github (opencode-otto ${pins.otto}); see ${docsUrl("ci.md")}`,
    "# The file must be on the default branch: workflow_run and issue_comment run it from there.",
    "name: otto",
    "",
    "on:",
    ...triggers,
    "",
    "# Nothing by default; the job below asks for what otto uses.",
    "permissions: {}",
    "",
    "jobs:",
    "  otto:",
    // Comments cannot go inside the folded expression: they sit above it, one per clause, in order.
    ...condition.filter((l) => l.startsWith("#")).map((l) => `    ${l}`),
    "    if: >-",
    ...condition.filter((l) => !l.startsWith("#")).map((l) => `      ${l}`),
    "    runs-on: ubuntu-latest",
    `    timeout-minutes: ${TIMEOUT_MINUTES}`,
    "    # One job per PR at a time, never cancelled halfway (a fix may be pushing); on the job, so a",
    "    # skipped event never joins the group. queue: max keeps every pending job (by default GitHub",
    "    # keeps one and drops the rest); each job does both flows from the PR as it is then.",
    "    concurrency:",
    `      group: otto-pr-\${{ ${PR_NUMBER} }}`,
    "      cancel-in-progress: false",
    "      queue: max",
    "    permissions:",
    ...Object.entries(jobPermissions(permissions)).map(([k, v]) => `      ${k}: ${v}`),
    "    steps:",
    "      # A GitHub App's token, minted for this job (an installation token lasts an hour, so one kept",
    "      # in a secret stops working): set the variable OTTO_APP_ID and the secret OTTO_APP_PRIVATE_KEY.",
    "      - id: app-token",
    "        if: vars.OTTO_APP_ID != ''",
    `        uses: ${ACTIONS.appToken}`,
    "        with:",
    "          app-id: ${{ vars.OTTO_APP_ID }}",
    "          private-key: ${{ secrets.OTTO_APP_PRIVATE_KEY }}",
    "          # Only what the job's own token gets: never Workflows, whatever else the App may do.",
    ...appTokenPermissions(permissions).map((l) => `          ${l}`),
    `      - uses: ${ACTIONS.checkout}`,
    "        with:",
    "          # The default branch whatever the event (a review's event would check out the PR's merge",
    "          # commit): OpenCode loads the directory's opencode.json and plugins when it starts, and",
    "          # otto runs a PR's code only in its sandbox. Otto moves the checkout to the PR's branch.",
    "          ref: ${{ github.event.repository.default_branch }}",
    "          # Whole history (otto rebases a fix on a moved branch); no token left in .git/config.",
    "          fetch-depth: 0",
    "          persist-credentials: false",
    `      - uses: ${ACTIONS.setupNode}`,
    "        with:",
    "          node-version: 22",
    "          # No cache: a cache saved after a PR's code ran would be restored on the default branch.",
    "          package-manager-cache: false",
    "      - name: Sandbox for otto's sessions (bubblewrap)",
    "        run: |",
    indent(SANDBOX_LINES, 10),
    "      - name: Install OpenCode and otto (pinned)",
    `        run: ${installLine(pins)}`,
    "      - name: Configure OpenCode, otto and otto's git",
    "        env:",
    `          OPENCODE_CONFIG_JSON: ${yamlString(opencodeConfig(setup))}`,
    `          OTTO_CONFIG_JSON: ${yamlString(ottoConfig(setup))}`,
    "          # Who pushes, for git's author and committer (GITHUB_IDENTITY_LINES).",
    "          APP_SLUG: ${{ steps.app-token.outputs.app-slug }}",
    "          MACHINE_TOKEN: ${{ secrets.OTTO_GITHUB_TOKEN }}",
    "          OTTO_BOT_LOGIN: ${{ vars.OTTO_BOT_LOGIN }}",
    "        run: |",
    indent(
      configureLines({
        // The job's own server: github.com, or a GitHub Enterprise Server.
        helperUrl: '"$GITHUB_SERVER_URL"',
        token: "$GITHUB_TOKEN",
        user: "x-access-token",
        identity: GITHUB_IDENTITY_LINES,
      }),
      10,
    ),
    "      - name: otto",
    "        env:",
    "          # Pushes made with the default GITHUB_TOKEN start no workflow run, so CI does not re-run",
    "          # on otto's fix; a GitHub App (above) or a machine account's token in OTTO_GITHUB_TOKEN does.",
    "          GITHUB_TOKEN: ${{ steps.app-token.outputs.token || secrets.OTTO_GITHUB_TOKEN || github.token }}",
    "          # Who writes otto's comments when the token cannot read its own user (an App's or the job's token).",
    `          OTTO_GITHUB_BOT_LOGIN: ${BOT_LOGIN}`,
    "          # app, machine (OTTO_GITHUB_TOKEN: otto then requires the variable OTTO_BOT_LOGIN) or job.",
    `          OTTO_GITHUB_TOKEN_KIND: ${TOKEN_KIND}`,
    ...input.secretNotes.map((n) => `          # ${n}`),
    ...secretEnv,
    "        run: opencode run --command otto-pr -- ci",
    "",
  ].join("\n");
}
