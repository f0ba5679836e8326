import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  AZURE_COMMENTS_FILE,
  AZURE_JOB_FILE,
  AZURE_TIMEOUT_MINUTES,
  azureJobs,
  planCiInit,
  type CiInitPlanInput,
} from "../../../../src/pr/ci/init/index.ts";

const input = (over: Partial<CiInitPlanInput> = {}): CiInitPlanInput => ({
  forge: "azure",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5" },
  opencodeEnv: new Map(),
  workflows: [],
  checkSuites: false,
  jobs: ["Build", "Test"],
  ...over,
});

type Step = {
  checkout?: string;
  task?: string;
  script?: string;
  env?: Record<string, string>;
  target?: unknown;
  persistCredentials?: boolean;
  fetchDepth?: number;
};
type Job = {
  job: string;
  dependsOn?: string;
  condition?: string;
  timeoutInMinutes: number;
  pool: unknown;
  variables: Array<{ group: string }>;
  steps: Step[];
};

function files(over: Partial<CiInitPlanInput> = {}): {
  job: Record<string, unknown> & { jobs: Job[] };
  comments: Record<string, unknown> & { jobs: Job[] };
  text: Record<string, string>;
} {
  const plan = planCiInit(input(over));
  const text = Object.fromEntries(plan.files.map((f) => [f.path, f.text]));
  expect(Object.keys(text)).toEqual([AZURE_JOB_FILE, AZURE_COMMENTS_FILE]);
  return { job: parse(text[AZURE_JOB_FILE] ?? "") as never, comments: parse(text[AZURE_COMMENTS_FILE] ?? "") as never, text };
}

const ottoStep = (job: Job): Step | undefined => job.steps.find((s) => s.script === "opencode run --command otto-pr -- ci");

describe("the Azure pipelines ci init writes", () => {
  it("a jobs template: after the build jobs, only when one failed, on a PR build, never for a fork", () => {
    const { job } = files();
    expect(job.parameters).toEqual([
      { name: "dependsOn", type: "object", default: ["Build", "Test"] },
      { name: "variableGroup", type: "string", default: "otto" },
    ]);
    const [otto] = job.jobs;
    expect(job.jobs).toHaveLength(1);
    expect(otto?.dependsOn).toBe("${{ parameters.dependsOn }}");
    expect(otto?.condition).toBe(
      "and(failed(), eq(variables['Build.Reason'], 'PullRequest'), ne(variables['System.PullRequest.IsFork'], 'True'))",
    );
    expect(otto?.timeoutInMinutes).toBe(AZURE_TIMEOUT_MINUTES);
    expect(otto?.pool).toEqual({ vmImage: "ubuntu-latest" });
    expect(otto?.variables).toEqual([{ group: "${{ parameters.variableGroup }}" }]);
    expect(ottoStep(otto as Job)?.env).toEqual({
      OTTO_CI_EVENT: "build_failed",
      SYSTEM_ACCESSTOKEN: "$(System.AccessToken)",
      ANTHROPIC_API_KEY: "$(ANTHROPIC_API_KEY)",
    });
  });

  it("the comment pipeline: webhook resource, no CI or PR trigger, the payload as JSON with macros defused", () => {
    const { comments } = files();
    expect(comments.trigger).toBe("none");
    expect(comments.pr).toBe("none");
    expect(comments.lockBehavior).toBe("sequential");
    expect(comments.resources).toEqual({
      webhooks: [
        {
          webhook: "otto",
          connection: "otto-comments",
          filters: [{ path: "eventType", value: "ms.vss-code.git-pullrequest-comment-event" }],
        },
      ],
    });
    const env = ottoStep(comments.jobs[0] as Job)?.env ?? {};
    expect(env.OTTO_CI_EVENT).toBe("comment");
    expect(env.OTTO_EVENT_PAYLOAD).toBe("${{ replace(convertToJson(parameters.otto), '$(', '$\\u0028') }}");
    expect(env.SYSTEM_ACCESSTOKEN).toBe("$(System.AccessToken)");
    // The replacement parses back to the same text: JSON's \u0028 is "(".
    expect(JSON.parse('"$\\u0028System.AccessToken)"')).toBe("$(System.AccessToken)");
  });

  it("both: pinned installs, no stored credentials, a script free of Azure macros but the mapped ones", () => {
    const { job, comments, text } = files();
    for (const doc of [job, comments]) {
      const steps = (doc.jobs[0] as Job).steps;
      expect(steps.find((s) => s.checkout)).toMatchObject({ checkout: "self", fetchDepth: 0, persistCredentials: false });
      const scripts = steps.map((s) => s.script ?? "").join("\n");
      expect(scripts).toContain("npm install --global --no-audit --no-fund opencode-ai@1.18.33 opencode-otto@0.1.0");
      expect(scripts).toContain(`credential."$SYSTEM_COLLECTIONURI".helper`);
      expect(scripts).toContain("sudo apt-get install -y -qq --no-install-recommends bubblewrap");
      const configure = steps.find((s) => s.env?.OTTO_CONFIG_JSON)?.env ?? {};
      expect(JSON.parse(configure.OTTO_CONFIG_JSON ?? "")).toMatchObject({ sandbox: "required" });
      // Every line of the configure script stays inside its block.
      expect(scripts).toContain('git config --global user.email "$email"');
      expect(scripts).not.toMatch(/\$\(/);
      expect(scripts).not.toMatch(/\$\{\{/);
    }
    for (const t of Object.values(text)) expect(t).not.toMatch(/persistCredentials: true/);
    // The PR build's job starts OpenCode on the target branch, never on the PR's merge commit.
    expect((job.jobs[0] as Job).steps[1]?.script).toBe('git checkout -q --detach "origin/${SYSTEM_PULLREQUEST_TARGETBRANCH#refs/heads/}"');
  });

  it("otto's step in both files may run no logging command that matters and set no variable", () => {
    const { job, comments } = files();
    for (const doc of [job, comments]) {
      const steps = (doc.jobs[0] as Job).steps;
      expect(ottoStep(doc.jobs[0] as Job)?.target).toEqual({ commands: "restricted", settableVariables: "none" });
      // Only otto's step: the comment pipeline's gate sets OTTO_SKIP with a logging command.
      expect(steps.filter((s) => s.target !== undefined)).toHaveLength(1);
    }
  });

  it("reads the build jobs of an azure-pipelines.yml", () => {
    const yml = [
      "jobs:",
      "- job: Build",
      "  steps: []",
      "- job: 'Lint'",
      "- deployment: Deploy",
      "stages:",
      "  - stage: S",
      "    jobs:",
      "      - job: Test # unit",
    ].join("\n");
    expect(azureJobs(yml)).toEqual(["Build", "Lint", "Test"]);
  });
});
