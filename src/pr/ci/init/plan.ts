import { docsUrl } from "../../../core/index.ts";
import {
  AZURE_COMMENTS_FILE,
  AZURE_JOB_FILE,
  LOCK_GROUP,
  renderAzureComments,
  renderAzureJob,
  WEBHOOK_CONNECTION,
} from "./azure-pipeline.ts";
import { GITHUB_WORKFLOW_FILE } from "./detect.ts";
import { jobPermissions, renderGithubWorkflow } from "./github-workflow.ts";
import { assertReachable, planModels, type ConfiguredModels } from "./models.ts";
import type { Pins } from "./pins.ts";
import { providerSecrets, secretNames, type ProviderSecrets } from "./secrets.ts";
import type { CiFile } from "./write-files.ts";

export type CiForge = "github" | "azure";

/** Where the checkout's origin is: whether it has one, and whether GitHub's or Azure DevOps' backend recognises it. */
export interface RemoteForges {
  origin: boolean;
  github: boolean;
  azure: boolean;
}

export interface CiInitPlanInput {
  forge: CiForge;
  pins: Pins;
  models: ConfiguredModels;
  /** The model this command runs with (`provider/model`), the fallback of unset roles. */
  currentModel?: string | undefined;
  /** Key variables per provider id, as OpenCode reports them. */
  opencodeEnv: ReadonlyMap<string, readonly string[]>;
  /** GitHub: the CI workflows (from --workflow, else detected). */
  workflows: string[];
  /** GitHub: listen to check_suite too. */
  checkSuites: boolean;
  /** Azure: the build job(s) otto's job runs after (from --job, else detected). */
  jobs: string[];
  /** Providers served on this machine (id → base URL): refused, a runner cannot reach them. */
  localProviders?: ReadonlyMap<string, string>;
  /** The checkout's origin; unknown when absent (no note). */
  remote?: RemoteForges;
  /** Azure: the incoming webhook's name, unguessable (ci init draws it). */
  webhookName?: string;
  /** `pr.flakes.open_issue` is on in this repository's config. */
  openIssues?: boolean;
  /** `pr.flakes.rerun` is on in this repository's config. */
  rerun?: boolean;
}

export interface CiInitPlan {
  files: CiFile[];
  secrets: ProviderSecrets[];
  /** Where the plan had to guess: said in the output. */
  notes: string[];
  /** Azure: the incoming webhook's name the user gives the service connection and the service hook. */
  webhookName?: string;
  /** GitHub: the job also has issues: write (`pr.flakes.open_issue`). */
  openIssues?: boolean;
  /** `pr.flakes.rerun`: GitHub's job gets actions: write, Azure's build identity needs "Queue builds". */
  rerun?: boolean;
}

const FORGE_NAME: Record<CiForge, string> = { github: "GitHub", azure: "Azure DevOps" };

/** Pure: what to say when the checkout's origin is not on the forge the files are for. */
function remoteNote(forge: CiForge, remote: RemoteForges | undefined): string[] {
  if (!remote || remote[forge]) return [];
  const settings = forge === "github" ? "pr.providers.github.hosts" : "pr.providers.ado.base_url";
  if (!remote.origin)
    return [
      `This checkout has no origin remote, so otto cannot tell whether the repository is on ${FORGE_NAME[forge]}. The files work only there: push the repository to ${FORGE_NAME[forge]} (git remote add origin <url>) before committing them.`,
    ];
  return [
    `The origin remote is not a ${FORGE_NAME[forge]} repository otto recognises${remote.github || remote.azure ? ` (it is on ${remote.github ? "GitHub" : "Azure DevOps"})` : ""}: these files run only on ${FORGE_NAME[forge]}. Run /otto-pr ci init ${remote.github ? "github" : remote.azure ? "azure" : forge} for the forge the repository is on, or, for a server of your own, set ${settings}.`,
  ];
}

function secretNotes(secrets: readonly ProviderSecrets[]): string[] {
  return secrets.flatMap((s) => {
    if (s.source === "placeholder") return [`${s.names.join(", ")}: a guess for provider ${s.provider}; put the variables it reads here.`];
    if (s.source === "oauth")
      return [`Provider ${s.provider} logs in through OpenCode (auth.json), not a key: use a provider with an API key in CI.`];
    return [];
  });
}

/** Pure: the files `ci init` writes and what the user must add for them. */
export function planCiInit(input: CiInitPlanInput): CiInitPlan {
  const { setup, used } = planModels(input.models, input.currentModel);
  assertReachable(used, input.localProviders ?? new Map());
  const secrets = providerSecrets(used, input.opencodeEnv);
  const names = secretNames(secrets);
  const notes = [...remoteNote(input.forge, input.remote), ...secretNotes(secrets)];
  if (input.forge === "github") {
    const workflows = input.workflows.length > 0 ? input.workflows : ["CI"];
    if (input.workflows.length === 0)
      notes.push(
        `No workflow found in .github/workflows: otto listens to one named "CI". Edit workflow_run.workflows, or run again with --workflow <name>.`,
      );
    // Without Actions workflows the CI reports from elsewhere (an app's check suites).
    const checkSuites = input.checkSuites || input.workflows.length === 0;
    const text = renderGithubWorkflow({
      pins: input.pins,
      setup,
      workflows,
      checkSuites,
      secrets: names,
      secretNotes: secretNotes(secrets),
      openIssues: input.openIssues === true,
      rerun: input.rerun === true,
    });
    return {
      files: [{ path: GITHUB_WORKFLOW_FILE, text }],
      secrets,
      notes,
      openIssues: input.openIssues === true,
      ...(input.rerun ? { rerun: true } : {}),
    };
  }
  const jobs = input.jobs.length > 0 ? input.jobs : ["Build"];
  if (input.jobs.length === 0)
    notes.push(
      `No job found in azure-pipelines.yml: otto's job runs after one named "Build". Set dependsOn where you include it, or run again with --job <name>.`,
    );
  const azure = { pins: input.pins, setup, dependsOn: jobs, secrets: names, secretNotes: secretNotes(secrets) };
  return {
    files: [
      { path: AZURE_JOB_FILE, text: renderAzureJob(azure) },
      { path: AZURE_COMMENTS_FILE, text: renderAzureComments(azure) },
    ],
    secrets,
    notes,
    ...(input.webhookName ? { webhookName: input.webhookName } : {}),
    ...(input.rerun ? { rerun: true } : {}),
  };
}

/** A Dependabot entry for the workflow's actions: https://docs.github.com/en/code-security/dependabot/working-with-dependabot/keeping-your-actions-up-to-date-with-dependabot */
export const DEPENDABOT = [
  "version: 2",
  "updates:",
  '  - package-ecosystem: "github-actions"',
  '    directory: "/"',
  "    schedule:",
  '      interval: "weekly"',
];

const SOURCE: Record<ProviderSecrets["source"], string> = {
  opencode: "as OpenCode reads it",
  known: "the provider's usual variable",
  placeholder: "a guess: check which variables the provider reads",
  oauth: "",
};

function secretLines(secrets: readonly ProviderSecrets[]): string[] {
  return secrets.flatMap((s) =>
    s.source === "oauth"
      ? [`   - (none for ${s.provider}: it logs in through OpenCode, not with a key; use a provider with an API key in CI)`]
      : s.names.map((n) => `   - \`${n}\`: ${s.provider} (${SOURCE[s.source]})`),
  );
}

/**
 * "Queue builds" on the PR pipeline, in the Build namespace: "Rerun failed jobs" (PATCH
 * builds/{id}?retry=true) and a build policy's requeue need it. Every fix flow re-runs once after an
 * infrastructure failure or a flaky one, and degrades without it (a person is asked to re-run), so
 * it is optional; `pr.flakes.rerun` re-runs every red head it cannot reproduce, which without it
 * only fails, so then it is asked for.
 * https://learn.microsoft.com/azure/devops/pipelines/policies/permissions#pipeline-permissions
 */
function azureQueueBuildsLine(rerun: boolean): string {
  const where = "Pipelines → your PR pipeline → ⋯ → Manage security → the same build identity: Queue builds: Allow";
  return rerun
    ? `   - ${where}: pr.flakes.rerun is on, so otto re-runs the failed jobs of a red head it cannot reproduce, to tell a flake (and once after an infrastructure failure or a flaky one); without it every such re-run is refused.`
    : `   - optional, ${where}: otto then re-runs the failed jobs once after an infrastructure failure or a flaky one; without it, it asks a person to. (With pr.flakes.rerun on, ci init asks for it.)`;
}

/** Pure: what `ci init` says after writing the files: the three steps left to the user. */
export function describeCiInit(plan: CiInitPlan, forge: CiForge, jobs: string[]): string {
  const written = plan.files.map((f) => f.path);
  const head = `Wrote ${written.join(" and ")} (not committed; review ${written.length === 1 ? "it" : "them"} first).`;
  const notes = plan.notes.map((n) => `Note: ${n}`);
  if (forge === "github") {
    return [
      head,
      "",
      "1. Add these repository secrets (Settings → Secrets and variables → Actions):",
      ...secretLines(plan.secrets),
      "   - optional, so that your CI re-runs on otto's fix (pushes made with the default GITHUB_TOKEN start no workflow run): a GitHub App with Contents and Pull requests read and write, Actions read (read and write with pr.flakes.rerun), Checks and Commit statuses read, as the variable `OTTO_APP_ID` and the secret `OTTO_APP_PRIVATE_KEY` (the job mints a fresh token each run); or `OTTO_GITHUB_TOKEN`, a fine-grained token of a machine account (every comment of that account counts as otto's own, so not a person's).",
      `2. Permissions: the workflow grants its job exactly ${Object.entries(
        jobPermissions({ openIssues: plan.openIssues === true, rerun: plan.rerun === true }),
      )
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ")}${
        plan.rerun
          ? " (actions: write because pr.flakes.rerun is on: otto re-runs the failed jobs of a red head it cannot reproduce, to tell a flake)"
          : " (actions: read: with pr.flakes.rerun off, otto's one re-run after an infrastructure failure or a flaky one is refused and it asks a person to re-run; turn the option on and run ci init again for actions: write)"
      }. If your organization caps the workflow token below that (Settings → Actions → General → Workflow permissions), allow read and write there; otto's pushes also need the PR branch not to be protected against them.`,
      `3. Commit ${written[0] ?? ""} on the default branch: workflow_run and comment events run workflows from there only.`,
      "4. Keep the pinned actions current: add this to .github/dependabot.yml (Dependabot updates the commit pins and their comments):",
      ...DEPENDABOT.map((l) => `       ${l}`),
      ...(notes.length ? ["", ...notes] : []),
      "",
      `Details: ${docsUrl("ci.md")}`,
    ].join("\n");
  }
  return [
    head,
    "",
    `1. Include the job in your PR pipeline, after the build (jobs: - template: ${AZURE_JOB_FILE}, parameters: dependsOn: [${jobs.join(", ")}]), and create a pipeline from ${AZURE_COMMENTS_FILE}.`,
    "2. Add secrets and permissions:",
    "   - a variable group `otto` (Pipelines → Library), authorized for both pipelines, with these secret variables:",
    ...secretLines(plan.secrets).map((l) => `  ${l}`),
    `   - a variable group \`${LOCK_GROUP}\` with one plain variable (e.g. OTTO_LOCK = 1), authorized for the comment pipeline only, with an Exclusive lock check (Approvals and checks): comment runs take turns. Never put the lock on \`otto\`: every PR build uses that group and would queue behind it.`,
    '   - Project settings → Repositories → your repository → Security → "<project> Build Service (<organization>)": Contribute and Contribute to pull requests: Allow (otto pushes fixes and posts replies with the job\'s token). If Project settings → Pipelines → Settings limits the job authorization scope to the current project (the default), that is the identity; without the limit it is "Project Collection Build Service (<organization>)".',
    azureQueueBuildsLine(plan.rerun === true),
    "   - the job's token (System.AccessToken): the files map it into the step's env, which is how a YAML pipeline allows scripts to access the OAuth token (the same switch as the classic \"Allow scripts to access the OAuth token\").",
    `   - comments: a service connection of type Incoming WebHook named \`${WEBHOOK_CONNECTION}\` with webhook name \`${plan.webhookName ?? "<a name nobody can guess>"}\` (drawn at random for you: anyone who knows it can start the comment pipeline, so keep it out of the repository), and a service hook (Project settings → Service hooks → Web Hooks, event "Pull request commented on", your repository) posting to https://dev.azure.com/<organization>/_apis/public/distributedtask/webhooks/${plan.webhookName ?? "<webhook name>"}?api-version=6.0-preview. The comment pipeline's first step drops comments on other repositories and otto's own before installing anything; otto reads every comment back from the API and ignores what the call itself claims.`,
    `3. Commit ${written.join(" and ")}.`,
    ...(notes.length ? ["", ...notes] : []),
    "",
    `Details: ${docsUrl("ci.md")}`,
  ].join("\n");
}
