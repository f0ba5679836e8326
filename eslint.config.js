// @ts-check
import eslint from "@eslint/js";
import boundaries from "eslint-plugin-boundaries";
import tseslint from "typescript-eslint";

/*
 * The layer map of src/ (docs/architecture.md, "Floors"): each entry is a floor, the lowest first.
 * A folder imports only from floors below its own, through the folder's index.ts. A floor that is
 * itself a list of floors is a stack: a folder with sub-folders that are layers of their own (pr/);
 * its sub-folders import the floors below the stack and the stack's lower floors, and the floors
 * above see only the stack's top (pr/index.ts).
 */
/** @type {(string | string[][])[][]} */
export const FLOORS = [
  ["core"],
  ["config", "prompts", "sandbox"],
  ["workspace", "cost", "rules"],
  ["guard", "session"],
  ["runtime"],
  ["analysis", "repo", "notify", "review", "host"],
  ["spec"],
  [
    "execute",
    "crew",
    [
      ["pr"], // the files at src/pr/'s root: the PrBackend interface, PR types, http, tokens, sanitize
      ["pr/store"],
      ["pr/github", "pr/ado"],
      ["pr/context"], // what commands and flows run in: PR context, backend registry, spend and caps, holds, hook types
      ["pr/commands"],
      ["pr/create", "pr/fix", "pr/comments"],
      // Rules learning reads PRs through the comment flow's markers and trust gate, and the watcher runs it daily.
      ["rules/signals"],
      ["rules/learn"],
      ["pr/watch"],
      ["pr/ci"], // one CI job per event: the watcher's flows and its markers, on a runner
      ["pr/index"], // src/pr/index.ts, pr/'s one public entry
    ],
  ],
  ["build", "pr-review"],
  ["tools"],
  ["index"], // src/index.ts, the plugin entry
];

/** Elements that are one file, not a folder: matched before the folders. */
const FILES = { index: "src/index.ts", runtime: "src/runtime.ts", "pr/index": "src/pr/index.ts", pr: "src/pr/*.ts" };

/*
 * Folders another folder may reach into below their index.ts: core's modules are small and its
 * barrel pulls in file locking, which the plugin's load path must not pay for (src/index.ts);
 * host/ has no barrel, only src/index.ts imports it. Inside the pr/ stack, sub-folders have no
 * index.ts yet and import each other's files.
 */
const OPEN_FOLDERS = [
  "core",
  "host",
  "runtime",
  "index",
  "pr",
  "pr/store",
  "pr/github",
  "pr/ado",
  "pr/context",
  "pr/commands",
  "pr/create",
  "pr/fix",
  "pr/comments",
  "pr/watch",
  "pr/ci",
  "pr/index",
];

/*
 * Every import that breaks the map today, each pinned to its file and the file it imports, with
 * the reason it is there. A new import that is not on this list and goes up, sideways or past an
 * index.ts fails `npm run lint`. Shrink the list; do not grow it.
 * [importing file, imported file, reason] (paths under src/)
 */
const EXCEPTIONS = [
  // Imports past an index.ts, on the plugin's load path or where the barrel would close a cycle.
  [
    "guard/session-guard.ts",
    "workspace/git.ts",
    "loaded lazily by the guard's hook; the workspace barrel pulls in commits, checks and the secret scan",
  ],
  ["runtime.ts", "cost/ledger.ts", "built at plugin load; the cost barrel pulls in reports, estimates and schemas"],
  ["runtime.ts", "cost/meter.ts", "built at plugin load; see cost/ledger.ts"],
  ["runtime.ts", "cost/prices.ts", "built at plugin load; see cost/ledger.ts"],
  ["runtime.ts", "guard/session-guard.ts", "built at plugin load; guard/index.ts exports the pure classifiers, not the hook"],
  [
    "runtime.ts",
    "session/runner.ts",
    "built at plugin load; the session barrel pulls in the child-session code the runner loads on first use",
  ],
  ["runtime.ts", "session/writes.ts", "built at plugin load beside the runner; see session/runner.ts"],
  ["runtime.ts", "session/stable-system.ts", "built at plugin load beside the runner; see session/runner.ts"],
  ["index.ts", "session/permission-guard.ts", "registered at plugin load; see runtime.ts → session/runner.ts"],
  ["session/runner.ts", "cost/account.ts", "on the load path through runtime.ts; see runtime.ts → cost/ledger.ts"],
  ["session/runner.ts", "cost/meter.ts", "on the load path through runtime.ts"],
  ["session/runner.ts", "cost/scope.ts", "on the load path through runtime.ts"],
  [
    "session/permission-guard.ts",
    "sandbox/typed-line.ts",
    "on the load path through src/index.ts; the sandbox barrel pulls in detection and both sandboxes",
  ],
];

/** The element types of the map, each with the floors it may import. */
function layerPolicies() {
  /** @type {{ type: string, below: string[] }[]} */
  const layers = [];
  /** @type {string[]} what the floors seen so far expose to the floors above */
  const seen = [];
  for (const floor of FLOORS) {
    /** @type {string[]} */
    const exposed = [];
    for (const item of floor) {
      if (typeof item === "string") {
        layers.push({ type: item, below: [...seen] });
        exposed.push(item);
        continue;
      }
      const inside = [];
      for (const sub of item) {
        for (const type of sub) layers.push({ type, below: [...seen, ...inside] });
        inside.push(...sub);
      }
      exposed.push(...(item.at(-1) ?? []));
    }
    seen.push(...exposed);
  }
  return layers;
}

const LAYERS = layerPolicies();

/** Sub-folders that are elements of their own, apart from their parent folder's (a folder on a stack's floor). */
const NESTED = ["rules/signals", "rules/learn"];

const elementOf = (/** @type {string} */ file) => {
  if (file === "index.ts" || file === "runtime.ts" || file === "pr/index.ts") return file.replace(/\.ts$/, "");
  const [top, sub] = file.split("/");
  if (top === "pr") return sub && sub.endsWith(".ts") ? "pr" : `pr/${sub}`;
  if (NESTED.includes(`${top}/${sub}`)) return `${top}/${sub}`;
  return top;
};
const insidePath = (/** @type {string} */ file) => {
  const element = elementOf(file);
  if (element === "pr") return file.slice("pr/".length);
  if (!(element in FILES) && element.length > 0) return file.slice(element.length + 1);
  return file;
};

/** The rules that keep src/ on its floors; exported for test/unit/lint. */
export const layers = [
  {
    files: ["src/**/*.ts"],
    plugins: { boundaries },
    settings: {
      "boundaries/elements": [
        ...Object.entries(FILES).map(([type, pattern]) => ({ type, pattern, mode: "file" })),
        // Before their parent folder's element, which would take their files too.
        ...NESTED.map((type) => ({ type, pattern: `src/${type}`, partialMatch: false })),
        ...LAYERS.filter(({ type }) => !NESTED.includes(type) && !(type in FILES)).map(({ type }) => ({
          type,
          pattern: `src/${type}`,
          partialMatch: false,
        })),
      ],
      "boundaries/legacy-warnings": false,
    },
    rules: {
      "boundaries/no-unknown-files": "error",
      "boundaries/dependencies": [
        "error",
        {
          default: "disallow",
          message:
            "{{from.element.type}} may not import {{dependency.source}} ({{to.element.type}}): import only downward, through a folder's index.ts (docs/architecture.md, Floors; exceptions in eslint.config.js)",
          policies: [
            ...LAYERS.map(({ type, below }) => ({ from: { element: { type } }, allow: { to: { element: { type: [type, ...below] } } } })),
            ...LAYERS.filter(({ type }) => !OPEN_FOLDERS.includes(type)).map(({ type }) => ({
              disallow: { to: { element: { type, fileInternalPath: "!index.ts" } } },
            })),
            ...EXCEPTIONS.map(([from, to]) => ({
              from: { element: { type: elementOf(from), fileInternalPath: insidePath(from) } },
              allow: { to: { element: { type: elementOf(to), fileInternalPath: insidePath(to) } } },
            })),
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "coverage/**", ".otto/**", "test/fixtures/**", "tmp/**", "reports/**"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Otto runs inside OpenCode: stdout belongs to the host. Log through client.app.log.
      "no-console": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      // OpenCode's hook and tool interfaces are async by contract; many implementations need no await.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Test support, bench and scripts are programs of their own and may print.
    files: ["test/**", "bench/**", "scripts/**"],
    rules: { "no-console": "off" },
  },
  { files: ["**/*.js", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
  ...layers,
);
