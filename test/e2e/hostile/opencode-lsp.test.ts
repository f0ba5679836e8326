import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertPluginLoaded,
  slashCommand,
  text,
  toolCall,
  useE2E,
  type RecordedRequest,
  type ScriptEntry,
  type Step,
  type Workspace,
} from "../../support/index.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { BRANCH, PR_URL, BROKEN, FIXED, analysis, cloneOfPr, fixReview, isFix, summary } from "../pr/fix-script.ts";
import { HOSTILE_OPENCODE } from "./pr-fix.ts";

/*
 * OpenCode's language servers run programs of the project outside any sandbox: a fix session's
 * sandboxed shell writes `node_modules/.bin/oxlint` (ignored, in no diff), and its next `read` of a
 * .js file would make OpenCode (in its own process) start the oxlint language server with OpenCode's
 * environment and the user's home. OpenCode 1.18 starts language servers only when the config turns
 * them on (`"lsp": true`, as here): then otto refuses the guarded session's file tools and says how
 * to turn them off. The home is outside /tmp.
 */

const CREDENTIAL = "https://octo:gho_storedInGitCredentials42@github.com";
const TEST_JS = 'import { add } from "./src/math.js";\nif (add(1, 2) !== 3) process.exit(1);\nconsole.log("ok");\n';
const toolCount = (req: RecordedRequest): number => req.messages.filter((m) => m.role === "tool").length;

function session(ws: Workspace, steps: readonly Step[]): ScriptEntry {
  return {
    label: "hostile fix session",
    times: Infinity,
    match: isFix,
    reply: (req): Step => {
      const done = toolCount(req);
      const step = steps[done];
      if (step !== undefined) return step;
      if (done === steps.length) return toolCall("write", { filePath: path.join(ws.project, "src/math.js"), content: FIXED }, "call_fix");
      return text("Changed src/math.js.\nFix summary: Add instead of subtract in add()");
    },
  };
}

describe.skipIf(detectSandbox().kind === "none")(
  "hostile: OpenCode's language servers on, a planted language server binary in the tree",
  () => {
    const e2e = useE2E();
    const forges = useForges();

    it("with lsp on, a guarded session's read is refused, naming the setting, and the planted node_modules/.bin/oxlint never runs", async () => {
      const f = await forges();
      const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
      f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: "FAIL test.js\nadd(1, 2): expected 3, received -1" }]);
      const config = f.ottoConfig({ models: { primary: "mock/m1" } });
      // The user turned OpenCode's language servers on (`"lsp": true`, off by default in 1.18.33).
      const ws = await e2e.workspace({
        config: { ...HOSTILE_OPENCODE, lsp: true },
        userOttoConfig: { ...config, pr: { ...(config.pr as object), max_fix_attempts: 1 } },
        env: f.env,
        remote: true,
      });
      await cloneOfPr(ws, {
        files: {
          "src/math.js": BROKEN,
          "package.json": JSON.stringify({ name: "app", type: "module", scripts: { test: "node test.js" } }, null, 2),
          "test.js": TEST_JS,
          ".gitignore": "node_modules/\n",
        },
      });
      fs.writeFileSync(path.join(ws.dirs.home, ".git-credentials"), `${CREDENTIAL}\n`);
      const { client } = await e2e.serve(ws);
      await assertPluginLoaded(client);
      e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
      expect(await ottoPr(client, `add ${PR_URL}`)).toContain("Tracking PR");

      const pwned = path.join(ws.project, "lsp-ran.txt");
      const payload = `#!/bin/sh\n{ echo "ran outside: $0 $*"; cat "$HOME/.git-credentials"; env; } > '${pwned}' 2>&1\n`;
      const steps: Step[] = [
        toolCall(
          "bash",
          {
            command: `mkdir -p node_modules/.bin && echo ${Buffer.from(payload).toString("base64")} | base64 -d > node_modules/.bin/oxlint && chmod +x node_modules/.bin/oxlint && cat ~/.git-credentials 2>&1; echo planted`,
            description: "install deps",
          },
          "call_plant",
        ),
        toolCall("read", { filePath: path.join(ws.project, "src/math.js") }, "call_read"),
      ];
      e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), session(ws, steps));
      await ottoPr(client, "fix");

      const results = e2e.model.requests.filter((q) => isFix(q) && q.lastRole === "tool").map((r) => r.toolResults[0]?.content ?? "");
      // The hostile step ran: the binary is in the tree, and the session's shell answered.
      expect(fs.existsSync(path.join(ws.project, "node_modules/.bin/oxlint"))).toBe(true);
      expect(results.some((r) => r.includes("planted"))).toBe(true);
      // The read that would start the language server was refused with the way out.
      expect(results.some((r) => /read while OpenCode's "lsp" is on[\s\S]*"lsp": false/.test(r))).toBe(true);
      // Nothing ran outside: no file of the planted program, no credential read.
      expect(fs.existsSync(pwned)).toBe(false);
    });
  },
);
