import type { Weakening, WeakeningKind } from "./detect-weakened-checks.ts";

/*
 * The test-relevant parts of a project's manifests, compared before and after a change: package.json
 * `scripts` and its test-runner keys (parsed), the tool sections of pyproject.toml, setup.cfg and
 * Cargo.toml, and a Makefile's test-like targets. The rest of a manifest (dependencies, versions)
 * may change freely.
 */

/** `scripts` of a package.json (undefined when the text is not JSON or has none). */
function packageSection(text: string | undefined, key: string): string | undefined {
  if (text === undefined) return undefined;
  try {
    const value = (JSON.parse(text) as Record<string, unknown>)[key];
    return value === undefined ? undefined : JSON.stringify(value);
  } catch {
    return "(not valid JSON)";
  }
}

function changedScripts(before: string | undefined, after: string | undefined): string[] {
  const parse = (text: string | undefined): Record<string, unknown> => {
    try {
      const scripts = text === undefined ? undefined : (JSON.parse(text) as { scripts?: unknown }).scripts;
      return scripts && typeof scripts === "object" ? (scripts as Record<string, unknown>) : {};
    } catch {
      return { "(package.json is not valid JSON)": text };
    }
  };
  const was = parse(before);
  const now = parse(after);
  return [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k])).sort();
}

/** Package.json keys that configure a test runner, linter or coverage in place. */
const PACKAGE_CHECK_KEYS = [
  "jest",
  "eslintConfig",
  "prettier",
  "c8",
  "nyc",
  "ava",
  "mocha",
  "vitest",
  "xo",
  "standard",
  "stylelint",
  "lint-staged",
];

/** Sections (`[tool.pytest.ini_options]`, `[tool:pytest]`, `[profile.test]`) of an INI or TOML text whose name matches. */
function sections(text: string | undefined, name: RegExp): string {
  if (text === undefined) return "";
  const out: string[] = [];
  let keep = false;
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
    if (header) keep = name.test(header[1]!);
    if (keep) out.push(line.trimEnd());
  }
  return out.join("\n");
}

const PYPROJECT_SECTIONS =
  /^tool\.(?:pytest|coverage|tox|nox|ruff|mypy|pylint|flake8|black|isort|pyright|hatch\.envs|poe|pdm\.scripts|rye\.scripts|bandit|pydocstyle)\b/;
const SETUP_CFG_SECTIONS = /^(?:tool:pytest|pytest|flake8|mypy(?:-.*)?|coverage:.*|pycodestyle|pydocstyle|isort|pylint.*|tox:.*)$/;
const CARGO_SECTIONS = /^(?:profile\.test|test|lints(?:\..*)?|workspace\.lints(?:\..*)?|package\.metadata\.(?:nextest|tarpaulin).*)$/;

/** The recipes of a Makefile's test-like targets (`test:`, `check:`, `lint:`, `ci:`, …). */
function makeTargets(text: string | undefined): string {
  if (text === undefined) return "";
  const out: string[] = [];
  let keep = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^[^\s#][^=]*:(?!=)/.test(line))
      keep = /^(?:\.PHONY\s*:.*|[\w./%-]*(?:test|check|lint|ci|verify|coverage|vet)[\w./%-]*(?:\s+[\w./%-]+)*\s*::?.*)$/i.test(line);
    else if (!/^\t/.test(line) && line.trim() !== "" && !line.startsWith("#")) keep = false;
    if (keep) out.push(line.trimEnd());
  }
  return out.join("\n");
}

/** What changed in the test-relevant parts of a manifest; undefined when nothing did. */
export function manifestChange(file: string, before: string | undefined, after: string | undefined): Weakening | undefined {
  const base = file.split("/").pop() ?? file;
  if (base === "package.json") {
    const scripts = changedScripts(before, after);
    if (scripts.length > 0) return { path: file, kind: "test_script", reason: `package.json scripts changed: ${scripts.join(", ")}` };
    const keys = PACKAGE_CHECK_KEYS.filter((k) => packageSection(before, k) !== packageSection(after, k));
    if (keys.length > 0)
      return { path: file, kind: "check_config", reason: `package.json test or lint configuration changed: ${keys.join(", ")}` };
    return undefined;
  }
  const compare = (
    pick: (text: string | undefined) => string,
    what: string,
    kind: WeakeningKind = "check_config",
  ): Weakening | undefined => (pick(before) !== pick(after) ? { path: file, kind, reason: `${what} changed` } : undefined);
  if (base === "pyproject.toml")
    return compare(
      (t) => sections(t, PYPROJECT_SECTIONS),
      "pyproject.toml test, lint or coverage sections ([tool.pytest], [tool.coverage], [tool.ruff], …)",
    );
  if (base === "setup.cfg")
    return compare((t) => sections(t, SETUP_CFG_SECTIONS), "setup.cfg test or lint sections ([tool:pytest], [flake8], [coverage:*], …)");
  if (base === "Cargo.toml")
    return compare((t) => sections(t, CARGO_SECTIONS), "Cargo.toml test or lint sections ([profile.test], [[test]], [lints])");
  if (/^(?:GNUmakefile|[Mm]akefile)$/.test(base)) return compare(makeTargets, "Makefile test, check or lint targets", "test_script");
  return undefined;
}

/** Basenames whose before/after text the detector reads (change-set.ts reads exactly these). */
export const MANIFESTS = /(?:^|\/)(?:package\.json|pyproject\.toml|setup\.cfg|Cargo\.toml|GNUmakefile|[Mm]akefile)$/;
