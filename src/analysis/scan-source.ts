import type { Signals } from "./types.ts";

interface SignalPattern {
  id: string;
  /** Which files the pattern applies to. */
  files: RegExp;
  /** Global; group 1, when present, is a name worth reporting (an error class, a sentinel). */
  pattern: RegExp;
}

const GO = /\.go$/;
const JS = /\.[cm]?[jt]sx?$/;
const PY = /\.py$/;
const RS = /\.rs$/;
const JVM = /\.(java|kt)$/;

/** Cheap content patterns; counts across the sample become evidence for conventions. */
const PATTERNS: SignalPattern[] = [
  { id: "go.errors-is", files: GO, pattern: /\berrors\.(?:Is|As)\(/g },
  { id: "go.errorf-wrap", files: GO, pattern: /\bfmt\.Errorf\("[^"\n]*%w/g },
  { id: "go.sentinel", files: GO, pattern: /\b(Err[A-Z]\w*)\s*=\s*errors\.New\(/g },
  { id: "go.error-type", files: GO, pattern: /^func \(\w+ \*?(\w+)\) Error\(\) string/gm },
  { id: "go.slog", files: GO, pattern: /"log\/slog"/g },
  { id: "go.slog-json", files: GO, pattern: /\bslog\.NewJSONHandler\(/g },
  { id: "go.stdlog", files: GO, pattern: /^\s*(?:import\s+)?"log"\s*$/gm },
  { id: "go.ctrl-log", files: GO, pattern: /"sigs\.k8s\.io\/controller-runtime\/pkg\/log(?:\/zap)?"/g },
  { id: "go.ctrl-manager", files: GO, pattern: /\bctrl\.NewManager\(|\bmanager\.New\(/g },
  { id: "go.ctrl-metrics", files: GO, pattern: /"sigs\.k8s\.io\/controller-runtime\/pkg\/metrics"/g },
  { id: "go.envtest", files: GO, pattern: /\benvtest\.Environment\b/g },
  { id: "go.table-tests", files: GO, pattern: /\b(?:tests|testCases|cases|tcs|tt)\s*:=\s*\[\]struct\s*\{/g },
  { id: "go.getenv", files: GO, pattern: /\bos\.(?:Getenv|LookupEnv)\(/g },
  { id: "go.flag", files: GO, pattern: /\bflag\.(?:String|Bool|Int|Duration)(?:Var)?\(/g },
  { id: "go.nethttp", files: GO, pattern: /\bhttp\.(?:ListenAndServe|HandleFunc|NewServeMux)\(/g },
  { id: "js.error-class", files: JS, pattern: /\bclass\s+(\w+)\s+extends\s+\w*Error\b/g },
  { id: "js.node-test", files: JS, pattern: /\bfrom\s+["']node:test["']|require\(["']node:test["']\)/g },
  { id: "js.process-env", files: JS, pattern: /\bprocess\.env\b/g },
  { id: "py.logging", files: PY, pattern: /^\s*(?:import logging\b|from logging import)/gm },
  { id: "py.unittest", files: PY, pattern: /\(\s*(?:unittest\.)?TestCase\s*\)/g },
  { id: "py.argparse", files: PY, pattern: /^\s*(?:import argparse\b|from argparse import)/gm },
  { id: "py.environ", files: PY, pattern: /\bos\.(?:environ|getenv)\b/g },
  { id: "py.exception-class", files: PY, pattern: /^class\s+(\w+)\((?:\w+\.)?\w*(?:Exception|Error)\)/gm },
  { id: "py.depends", files: PY, pattern: /\bDepends\(/g },
  { id: "rs.test", files: RS, pattern: /#\[(?:tokio::)?test\]/g },
  { id: "rs.env", files: RS, pattern: /\benv::var(?:_os)?\(/g },
  { id: "jvm.rest-controller", files: JVM, pattern: /@(?:RestController|GetMapping|PostMapping|RequestMapping)\b/g },
  { id: "jvm.exception-class", files: JVM, pattern: /\bclass\s+(\w+)\s*(?:\([^)]*\)\s*)?(?:extends|:)\s*\w*(?:Exception|Error)\b/g },
  { id: "jvm.controller-advice", files: JVM, pattern: /@(?:Rest)?ControllerAdvice\b/g },
  { id: "jvm.slf4j", files: JVM, pattern: /\bimport\s+org\.slf4j\./g },
  { id: "jvm.config-props", files: JVM, pattern: /@(?:Value\(|ConfigurationProperties\b)/g },
];

/** Names per signal are capped: evidence, not an inventory. */
const MAX_NAMES = 8;

/** Adds one file's matches to `signals`. Pure apart from updating the map it is given. */
export function scanSource(path: string, text: string, signals: Signals): void {
  for (const { id, files, pattern } of PATTERNS) {
    if (!files.test(path)) continue;
    const matches = [...text.matchAll(pattern)];
    if (matches.length === 0) continue;
    const hit = signals.get(id) ?? { count: 0, files: [], names: [] };
    hit.count += matches.length;
    hit.files.push(path);
    for (const match of matches) {
      const name = match[1];
      if (name && !hit.names.includes(name) && hit.names.length < MAX_NAMES) hit.names.push(name);
    }
    signals.set(id, hit);
  }
}

/** Facts from manifests (a `bin` entry, pytest config) join the same map, keyed `manifest.*`. */
export function addSignal(signals: Signals, id: string, file: string): void {
  const hit = signals.get(id) ?? { count: 0, files: [], names: [] };
  hit.count += 1;
  if (!hit.files.includes(file)) hit.files.push(file);
  signals.set(id, hit);
}
