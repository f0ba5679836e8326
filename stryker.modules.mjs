// The safety floor (docs/testing.md, "Mutation testing of the safety floor"): each module whose
// failure would leak a secret, run code outside the sandbox, push what must not leave or let a
// weakened check through, with the unit tests that exercise it. Stryker mutates one module at a
// time against its own tests only (scripts/mutate.mjs): through the folders' index files nearly
// every unit test reaches some safety module, and running all of them per module would take hours.
/** @type {Record<string, string[]>} */
export const SAFETY_MODULES = {
  "src/sandbox/bwrap.ts": ["test/unit/sandbox/bwrap-args.test.ts", "test/unit/sandbox/access.test.ts"],
  "src/sandbox/home.ts": ["test/unit/sandbox/home-paths.test.ts", "test/unit/sandbox/access.test.ts"],
  "src/sandbox/secret-files.ts": [
    "test/unit/sandbox/secret-files-direct.test.ts",
    "test/unit/sandbox/secret-files-edges.test.ts",
    "test/unit/sandbox/access.test.ts",
  ],
  "src/sandbox/git-index.ts": [
    "test/unit/sandbox/git-index.test.ts",
    "test/unit/sandbox/secret-files-edges.test.ts",
    "test/unit/sandbox/secret-files-direct.test.ts",
  ],
  "src/sandbox/sandbox-env.ts": ["test/unit/sandbox/sandbox-env.test.ts", "test/unit/sandbox/access.test.ts"],
  "src/sandbox/git-config-view.ts": ["test/unit/sandbox/git-config-view.test.ts"],
  "src/sandbox/git-settings.ts": ["test/unit/sandbox/git-settings.test.ts"],
  "src/sandbox/in-tree-controls.ts": ["test/unit/sandbox/in-tree-controls-paths.test.ts", "test/unit/sandbox/in-tree-controls.test.ts"],
  "src/sandbox/net.ts": ["test/unit/sandbox/net-direct.test.ts"],
  "src/sandbox/policy.ts": ["test/unit/sandbox/policy-direct.test.ts"],
  "src/sandbox/credential-paths.ts": ["test/unit/sandbox/policy-direct.test.ts"],
  "src/sandbox/push-env.ts": ["test/unit/sandbox/push-env-direct.test.ts"],
  "src/sandbox/wrap.ts": ["test/unit/sandbox/wrap-direct.test.ts"],
  "src/workspace/airlock.ts": ["test/unit/workspace/airlock-plan.test.ts"],
  "src/workspace/git-binary.ts": ["test/unit/workspace/git-binary.test.ts"],
  "src/workspace/git-guard.ts": ["test/unit/workspace/git-guard-items.test.ts"],
  "src/workspace/push-scan.ts": ["test/unit/workspace/push-scan-direct.test.ts"],
  "src/workspace/secret-scan.ts": ["test/unit/workspace/secret-scan.test.ts"],
  "src/workspace/pushed-metadata.ts": ["test/unit/workspace/pushed-metadata.test.ts"],
  "src/workspace/quarantine.ts": ["test/unit/workspace/quarantine-paths.test.ts", "test/unit/workspace/quarantine.test.ts"],
  "src/core/redact.ts": ["test/unit/core/redact.test.ts", "test/unit/safety/secrets-corpus.test.ts"],
  "src/workspace/detect-weakened-checks.ts": ["test/unit/workspace/detect-weakened-checks-table.test.ts"],
  "src/workspace/restored-checks.ts": ["test/unit/workspace/restored-checks-direct.test.ts"],
  "src/config/trust.ts": ["test/unit/config/trust.test.ts"],
  "src/session/permission-guard.ts": ["test/unit/session/permission-guard.test.ts"],
  "src/guard/session-guard.ts": ["test/unit/guard/session-guard-wiring.test.ts", "test/unit/guard/repeated-calls.test.ts"],
  "src/guard/tool-paths.ts": ["test/unit/guard/path-refusal.test.ts"],
  "src/guard/running-commands.ts": ["test/unit/guard/running-commands.test.ts"],
  "src/guard/control-settle.ts": ["test/unit/guard/control-settle.test.ts"],
  "src/guard/host-runners.ts": ["test/unit/guard/host-runners.test.ts"],
  "src/guard/blocked.ts": ["test/unit/guard/host-runners.test.ts"],
  "src/guard/guard-config.ts": ["test/unit/guard/guard-config.test.ts"],
  "src/guard/tool-args.ts": ["test/unit/guard/tool-args.test.ts"],
  "src/crew/render.ts": ["test/unit/crew/render.test.ts", "test/unit/crew/across.test.ts"],
};
