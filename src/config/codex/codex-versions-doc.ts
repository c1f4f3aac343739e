/**
 * The version table as Markdown (pure): the generated part of `docs/codex-versions.md`, one
 * column per supported Codex version, one line per measured behaviour. A test keeps the document
 * equal to this output, so the document cannot drift from the table the code reads.
 */
import {
  CODEX_VERSIONS,
  versionGatedMcpServerKeys,
  versionGatedTopLevelKeys,
  type CodexVersionFacts,
} from './codex-versions.js';

/** Marks the start and end of the generated block in `docs/codex-versions.md`. */
export const GENERATED_BEGIN = '<!-- generated from src/config/codex/codex-versions.ts: begin -->';
export const GENERATED_END = '<!-- generated from src/config/codex/codex-versions.ts: end -->';

const AUTO_RULES: Readonly<Record<CodexVersionFacts['autoApproval'], string>> = {
  'destructive-overrides-read-only':
    'asks if `destructiveHint`; else skips read-only and closed-world tools',
  'read-only-or-closed-world': 'skips read-only (even if destructive) and closed-world tools',
};

const NAME_RULES: Readonly<Record<CodexVersionFacts['serverNames'], string>> = {
  'fails-outside-pattern': 'fail at startup',
  'maps-outside-pattern': 'start, characters mapped to `_`',
};

const yes = (value: boolean): string => (value ? 'yes' : 'no');

/** The generated Markdown block (markers included), newest version first. */
export function codexVersionsMarkdown(
  table: readonly CodexVersionFacts[] = CODEX_VERSIONS,
): string {
  const rows: [string, (row: CodexVersionFacts) => string][] = [
    ['measured release', (r) => `\`${r.measured}\``],
    ['default', (r) => yes(r === table[0])],
    ...versionGatedMcpServerKeys(table).map((key): [string, (row: CodexVersionFacts) => string] => [
      `\`[mcp_servers.X] ${key}\``,
      (r) => (r.mcpServerKeys.includes(key) ? 'accepted' : 'rejected'),
    ]),
    ...versionGatedTopLevelKeys(table).map((key): [string, (row: CodexVersionFacts) => string] => [
      `top-level \`${key}\``,
      (r) => (r.versionTopLevelKeys.includes(key) ? 'accepted' : 'rejected'),
    ]),
    ['approval mode `auto`', (r) => AUTO_RULES[r.autoApproval]],
    ['native roles isolated', (r) => yes(r.nativeRolesIsolated)],
    [
      'shell sees every variable (no `shell_environment_policy`)',
      (r) => yes(r.shellInheritsAllByDefault),
    ],
    ['server names outside `^[a-zA-Z0-9_-]+$`', (r) => NAME_RULES[r.serverNames]],
    ['`codex mcp-server`', (r) => yes(r.hasMcpServerCommand)],
    ['app-server rollback method', (r) => `\`${r.rollbackMethod}\``],
    [
      'Responses: base instructions',
      (r) =>
        r.responses.instructions === 'instructions-field'
          ? '`instructions` field'
          : 'first developer message',
    ],
    [
      'Responses: `function_call_output.output`',
      (r) => (r.responses.toolOutput === 'string' ? 'string' : 'array of `input_text`'),
    ],
    ['Responses: `update_plan` offered by default', (r) => yes(r.responses.updatePlanByDefault)],
    [
      'untrusted project `.codex/config.toml` loaded (workspace-write)',
      (r) => yes(r.loadsUntrustedProjectConfig),
    ],
    [
      'interactive TUI asks about a folder not marked trusted at every start',
      (r) => yes(r.tuiAsksUnlessTrusted),
    ],
    ['unknown config keys warned about', (r) => yes(r.warnsUnknownKeys)],
    [
      'sandbox mount points made in the working directory',
      (r) => r.sandboxMountPoints.map((n) => `\`${n}\``).join(', '),
    ],
    ['interactive TUI leaves an app-server daemon', (r) => yes(r.tuiLeavesAppServerDaemon)],
    [
      'interactive TUI keeps its app-server as a child with',
      (r) =>
        r.tuiOwnAppServerArgs.length === 0
          ? '—'
          : r.tuiOwnAppServerArgs.map((a) => `\`${a}\``).join(' '),
    ],
    [
      'started directly as (npm launcher not kept)',
      (r) =>
        `\`vendor/<triple>/${r.nativeLaunch.entry}\` with ${r.nativeLaunch.launcherEnv.map((n) => `\`${n}\``).join(', ')}`,
    ],
    [
      'MCP 2026-07-28 client (`[features]`)',
      (r) =>
        `\`${r.mcp2026.feature}\`, ${r.mcp2026.stage}, ${r.mcp2026.onByDefault ? 'on' : 'off'} by default`,
    ],
    [
      'with it on',
      (r) =>
        `HTTP: \`server/discover\` first, no session; stdio: also needs \`${r.mcp2026.stdioEnv}\` in the server's \`env\``,
    ],
  ];
  const lines = [
    GENERATED_BEGIN,
    '',
    `| behaviour | ${table.map((r) => `${r.series}.x`).join(' | ')} |`,
    `|---|${table.map(() => '---|').join('')}`,
    ...rows.map(([name, cell]) => `| ${name} | ${table.map(cell).join(' | ')} |`),
    '',
    GENERATED_END,
  ];
  return lines.join('\n');
}
