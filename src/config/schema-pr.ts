import { z } from "zod";
import { Commands, Count, Duration, HttpUrl, NonEmpty } from "./fields.ts";

const GithubProvider = z.strictObject({
  token: z.string().optional().describe("GitHub token. Prefer the GITHUB_TOKEN environment variable, which wins over this key."),
  api_url: HttpUrl.default("https://api.github.com").describe(
    "GitHub REST API base URL. For GitHub Enterprise Server use https://<host>/api/v3.",
  ),
  hosts: z
    .array(NonEmpty)
    .default([])
    .describe('Extra web hosts whose PR URLs belong to this provider (GitHub Enterprise), e.g. ["github.example.com"].'),
  pause_writes: z
    .boolean()
    .default(true)
    .describe(
      "Pause between writes as GitHub.com asks (a second between writes, three between those that notify people). Off only for a GitHub Enterprise Server whose rate limits are off (its default): there the pauses only slow otto down.",
    ),
  bot_login: NonEmpty.optional().describe(
    "Who the token writes as when it cannot read its own user (GET /user answers 403 to GitHub App installation tokens and to GitHub Actions' token): e.g. github-actions[bot], or my-app[bot]. The OTTO_GITHUB_BOT_LOGIN environment variable wins over this key.",
  ),
});

const AdoProvider = z.strictObject({
  organization: NonEmpty.optional().describe("Azure DevOps organization, e.g. myorg in https://dev.azure.com/myorg."),
  project: NonEmpty.optional().describe("Azure DevOps project used when a PR is added by number."),
  pat: z
    .string()
    .optional()
    .describe("Azure DevOps personal access token. Prefer the OTTO_ADO_PAT environment variable, which wins over this key."),
  base_url: HttpUrl.default("https://dev.azure.com").describe(
    "Azure DevOps base URL (for on-premises servers or the legacy visualstudio.com hosts).",
  ),
  auto_complete: z.boolean().default(true).describe("Set auto-complete on PRs otto creates or tracks."),
  merlinbot: z
    .boolean()
    .default(true)
    .describe("Answer MerlinBot comments like a reviewer's while watching a PR (off: bot comments are ignored)."),
  bot_names: z
    .array(NonEmpty)
    .default(["MerlinBot"])
    .describe(
      "Display names of the review bot: a comment under one of them whose author is not in bot_ids is judged like anyone's, and otto logs its id so you can add it.",
    ),
  bot_ids: z
    .array(NonEmpty)
    .default([])
    .describe(
      "Identity ids of the review bot whose comments `merlinbot` turns on (a comment's author id; otto logs it for a comment by one of bot_names). Display names are anyone's to pick, so only the id counts.",
    ),
  create_work_item: z
    .boolean()
    .default(true)
    .describe("Create a work item for a PR through the PR comment convention (posts `work_item_comment` once per PR)."),
  work_item_comment: z
    .string()
    .optional()
    .describe(
      'The comment your organization\'s convention uses to create and link a work item, e.g. "#workitem create". Unset: no comment is posted.',
    ),
});

/** How the fix flow tells a flaky or inherited failure from the PR's own before any model call (docs/pr-fix.md). */
export const FlakesConfig = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Before the analysis: a failure the default branch has too (main is red) or one known or shown to be flaky gets no fix session. Off: every failure goes to the analysis.",
      ),
    rerun: z
      .boolean()
      .default(false)
      .describe(
        "Re-run the failed jobs once per head commit before any analysis when otto could not reproduce the failure locally: passing on the re-run records a flake and opens no session; failing again goes to the analysis. Costs one CI run and one poll of latency per red head.",
      ),
    notify_after: Count(1)
      .default(3)
      .describe("Occurrences of one flaky failure within `window` after which one notification names it with its evidence."),
    window: Duration.default("14d").describe("The span `notify_after` counts in, e.g. 14d; one notification per flaky failure per window."),
    open_issue: z
      .boolean()
      .default(false)
      .describe(
        "When a flaky failure crosses `notify_after`, also open one GitHub issue or Azure DevOps work item (Bug) naming it with its evidence; its URL is kept in the flake ledger so it is never opened twice. The token needs issues: write (GitHub) or Edit work items (Azure DevOps); a refusal is said in the notification.",
      ),
  })
  .describe("Flaky and inherited failures of tracked PRs: told apart in code before the fix flow's analysis.");
export type FlakesConfig = z.infer<typeof FlakesConfig>;

/** Who may steer otto through PR comments besides (or instead of) the people the forge says can write. */
export const TrustedAuthors = z
  .strictObject({
    mode: z
      .enum(["add", "only"])
      .default("add")
      .describe(
        "add: the listed people are answered as well as everyone with write access (GitHub) or project membership (Azure DevOps); only: the listed people alone, the forge is not asked.",
      ),
    logins: z
      .array(NonEmpty)
      .default([])
      .describe(
        'GitHub logins, or Azure DevOps display names, unique names (emails) or identity ids; matched without case, e.g. ["alice", "bob@contoso.com"].',
      ),
  })
  .describe("Whose PR comments otto acts on. Everyone else's comments are recorded and left for a person.");
export type TrustedAuthors = z.infer<typeof TrustedAuthors>;

export const PrConfig = z.strictObject({
  default_provider: z
    .enum(["github", "ado"])
    .optional()
    .describe("Provider used when a PR is added by number instead of URL. Unset: pass --provider."),
  max_fix_attempts: Count(0).default(5).describe("How many times otto tries to fix a failing PR pipeline before giving up."),
  request_timeout: Duration.default("30s").describe(
    "Time limit of one request to GitHub or Azure DevOps, e.g. 30s; a request that passes it is retried like a server error.",
  ),
  full_poll_interval: Duration.default("10m").describe(
    "How often the watcher reads a tracked PR in full although its forge's PR list shows no change, e.g. 10m: a CI re-run someone started, or a new Azure DevOps comment, is seen by then.",
  ),
  open_unverified: z
    .enum(["no", "draft"])
    .default("no")
    .describe(
      "What --pr on execute and build does when the run ends unverified (a check fails at its end): no (open nothing, say why) or draft (open a draft PR that says which check fails).",
    ),
  verify: Commands.optional().describe(
    'Commands that must pass before otto pushes a fix, e.g. ["npm test"]. Unset: the project\'s own checks, detected from its manifests; [] pushes without local checks.',
  ),
  trusted_authors: TrustedAuthors.prefault({}),
  flakes: FlakesConfig.prefault({}),
  providers: z
    .strictObject({
      github: GithubProvider.prefault({}).describe("GitHub pull request backend."),
      ado: AdoProvider.prefault({}).describe("Azure DevOps pull request backend."),
    })
    .prefault({})
    .describe("Settings for each pull request backend."),
});

const Repo = z
  .strictObject({
    name: NonEmpty.describe("Short name used by --repo, e.g. my-service."),
    primary_dir: NonEmpty.describe("The main clone. A leading ~/ means your home directory."),
    worktree_dir: NonEmpty.optional().describe("Where worktrees are created (worktree strategy). A leading ~/ means your home directory."),
    git_strategy: z
      .enum(["worktree", "branch", "hands-off"])
      .default("worktree")
      .describe(
        "worktree: one git worktree per task; branch: branches in primary_dir; hands-off: otto never creates or switches branches.",
      ),
    branch_template: NonEmpty.optional().describe(
      "Branch name for a new worktree or branch; {{name}} is the name given, e.g. users/me/{{name}}.",
    ),
    branch_patterns: z
      .array(NonEmpty)
      .default([])
      .describe('Glob patterns of branches that belong to otto-managed work, e.g. ["feature/*", "users/me/*"].'),
  })
  .describe("A repository otto manages.");

export const ReposConfig = z.array(Repo).superRefine((repos, ctx) => {
  const seen = new Set<string>();
  repos.forEach((repo, index) => {
    if (seen.has(repo.name)) {
      ctx.addIssue({
        code: "custom",
        path: [index, "name"],
        input: repo.name,
        message: `a name not used by another repo ('${repo.name}' appears twice)`,
      });
    }
    seen.add(repo.name);
  });
});
