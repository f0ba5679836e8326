/* What the Azure Pipelines agent would take from a step's output as commands (tests of otto's Azure output). */

/**
 * The agent's reading of a printed line (azure-pipelines-agent, Command.TryParse and the log
 * formatter): a `##vso[area.event props]data` command found anywhere in the line, case-insensitive,
 * or a `##[name]` formatting command at the line's start.
 */
export function agentCommands(output: string): string[] {
  const found: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    const at = line.toLowerCase().indexOf("##vso[");
    if (at >= 0) {
      const m = /^##vso\[([^\]\s.]+)\.([^\]\s]+)[^\]]*\]/i.exec(line.slice(at));
      if (m) found.push(`${m[1]}.${m[2]}`.toLowerCase());
    }
    const fmt = /^##\[([a-z]+)\]/i.exec(line.trimStart());
    if (fmt) found.push(`format:${fmt[1]!.toLowerCase()}`);
  }
  return found;
}
