/**
 * `codex-mmo tool-mcp import FILE`: brings the MCP servers of a Codex config.toml, a Claude Code
 * MCP file or a server.json into the registry, each probed, written and pinned as `tool-mcp add`
 * does. Shows each server's fragment or why it cannot be imported; literal secrets become
 * variable names and are moved to credentials.env only on request. No value is ever printed.
 */
import { configFiles, loadCredentials, maskSecrets } from '../../index.js';
import { maskDeep, suggest } from '../../foundation/diagnostics/index.js';
import { terminalSafe } from '../../foundation/text/index.js';
import {
  IMPORT_FORMATS,
  importServers,
  type ImportFormat,
  type ImportResult,
} from '../../features/onboard/index.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp import FILE [--from codex|claude|server-json] [--only NAME,...] [--rename NAME=ID]... [--dry-run] [--move-secrets] [--no-probe] [--json]

Bring the MCP servers an operator already has into the registry: the [mcp_servers.NAME] tables
of a Codex config.toml (~/.codex/config.toml), a Claude Code MCP file (a project's .mcp.json,
or ~/.claude.json with its top-level and per-project "mcpServers"), or an MCP registry
server.json (npm, PyPI and OCI packages run over stdio, streamable-http remotes; $schema
2025-07-09 to 2025-12-11). The format is detected from the file unless --from says it.

Each server becomes <config-dir>/tool-mcp.d/50-ID.toml, started, listed and pinned exactly as
\`codex-mmo tool-mcp add\` does (Codex's enabled_tools and disabled_tools narrow the tools written).
A literal secret in the source — an env or header value named or shaped like a credential, a
Codex bearer_token, a server.json isSecret value — becomes a variable name (env_vars,
bearer_token_env_var, env_http_headers); \${VAR} references of Claude Code files become
variable names too. Secret values stay where they were unless --move-secrets writes them to
credentials.env; they are never printed, and the output names the variables to set.

Nothing is written while any selected server has an error (an SSE transport, OAuth, a name
that is not a registry ID, an ID the registry already has, a secret on the command line, …):
fix it, or leave the server out with --only. A server whose probe fails is not written; the
others are.

Options:
  --from FORMAT        codex, claude or server-json (default: detected)
  --only NAME,...      import only these servers (source names or IDs)
  --rename NAME=ID     import server NAME under registry ID (repeatable)
  --dry-run            print each server's fragment and what would move; write and start nothing
  --move-secrets       write the source's literal secrets to credentials.env (mode 0600)
  --no-probe           write fragments without starting servers (needs the source's tool list;
                       pin them later with \`codex-mmo tool-mcp pin ID\`)

JSON: {"ok", "file", "format", "dry_run", "credentials_file", "servers": [{"name", "id", "status",
"file", "source", "text", "variables", "missing", "moved", "diagnostics"}], "diagnostics"}
(status: imported, would-import, refused, not-imported).`;

const OPTIONS = {
  from: { type: 'string' },
  only: { type: 'string' },
  rename: { type: 'string', multiple: true },
  'dry-run': { type: 'boolean' },
  'move-secrets': { type: 'boolean' },
  'no-probe': { type: 'boolean' },
} as const;

function renames(values: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of Array.isArray(values) ? values : []) {
    if (typeof item !== 'string') continue;
    const at = item.indexOf('=');
    if (at <= 0 || at === item.length - 1) {
      throw new UsageError(`--rename takes NAME=ID, not '${item.slice(0, 60)}'`);
    }
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

function resultJson(result: ImportResult): unknown {
  return {
    ok: result.ok,
    file: result.file,
    ...(result.format !== undefined ? { format: result.format } : {}),
    dry_run: result.dryRun,
    credentials_file: result.credentialsFile,
    servers: result.servers.map((s) => ({
      name: s.name,
      id: s.id,
      status: s.status,
      file: s.file,
      source: s.source,
      ...(s.text !== undefined ? { text: s.text } : {}),
      ...(s.definition !== undefined ? { server: s.definition } : {}),
      variables: s.variables,
      missing: s.missing,
      moved: s.moved,
      diagnostics: s.diagnostics,
    })),
    diagnostics: result.diagnostics,
  };
}

const STATUS_WORDS = {
  imported: 'imported to',
  'would-import': 'would be written to',
  refused: 'cannot be imported',
  'not-imported': 'not imported (another server has errors); would be written to',
} as const;

function resultText(result: ImportResult): string {
  const lines: string[] = [];
  for (const server of result.servers) {
    const where = server.source.line !== undefined ? `:${String(server.source.line)}` : '';
    const why = server.diagnostics.find((d) => d.severity === 'error')?.code;
    const head = `${server.name} (${server.source.path}${where}) -> '${server.id}' ${STATUS_WORDS[server.status]}${server.status === 'refused' && why !== undefined ? ` [${why}]` : ''}`;
    lines.push(terminalSafe(server.status === 'refused' ? head : `${head} ${server.file}`));
    if (server.text !== undefined && server.status !== 'refused') {
      for (const line of server.text.trimEnd().split('\n')) lines.push(`    ${terminalSafe(line)}`);
    }
    if (server.moved.length > 0) {
      lines.push(
        `  ${result.dryRun ? 'would move' : 'moved'} to credentials.env: ${server.moved.join(', ')}`,
      );
      // the value is now in credentials.env; the source still holds it as a literal
      lines.push(
        `  the source (${terminalSafe(server.source.path)}${where}) still holds ${server.moved.length === 1 ? 'that value' : 'those values'}: remove ${server.moved.length === 1 ? 'it' : 'them'} there${result.dryRun ? ' once imported' : ''}`,
      );
    }
    if (server.missing.length > 0 && server.status !== 'refused') {
      lines.push(`  set in ${result.credentialsFile}: ${server.missing.join(', ')}`);
    }
    lines.push('');
  }
  const count = (status: string) => result.servers.filter((s) => s.status === status).length;
  if (result.dryRun) {
    lines.push(
      result.ok
        ? `dry run: ${String(count('would-import'))} server(s) would be imported; nothing was written`
        : 'dry run: the import would be refused (see the errors); nothing was written',
    );
  } else if (count('imported') > 0) {
    lines.push(
      `imported ${String(count('imported'))} server(s); review the fragments, then run \`codex-mmo tool-mcp validate\``,
    );
    const refused = result.servers.filter((s) => s.status === 'refused').map((s) => s.name);
    if (refused.length > 0) {
      // the imported ones now hold their IDs: an import of the whole file again would be refused
      lines.push(
        `not imported: ${refused.join(', ')}; fix the errors above, then import only ${refused.length === 1 ? 'it' : 'them'}: --only ${refused.join(',')}`,
      );
    }
  } else lines.push('nothing was imported; fix the errors above and run import again');
  return `${lines.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, OPTIONS, { min: 1, max: 1, names: ['FILE'] });
  if (cmd.help) return printHelp(io, USAGE);
  const from = cmd.values.from;
  if (from !== undefined && !(IMPORT_FORMATS as readonly unknown[]).includes(from)) {
    const near = typeof from === 'string' ? suggest(from, IMPORT_FORMATS) : undefined;
    const hint = near !== undefined ? ` (did you mean '${near}'?)` : '';
    throw new UsageError(`--from takes one of ${IMPORT_FORMATS.join(', ')}${hint}`);
  }
  const only =
    typeof cmd.values.only === 'string'
      ? cmd.values.only
          .split(',')
          .map((n) => n.trim())
          .filter((n) => n !== '')
      : undefined;
  if (only?.length === 0) throw new UsageError('--only takes a comma-separated list of names');
  const configDir = cmd.dirs.configDir;
  const credentials = await loadCredentials(configFiles(configDir).credentials, io.env);
  const result = await importServers(
    {
      file: cmd.positionals[0] ?? '',
      ...(from !== undefined ? { from: from as ImportFormat } : {}),
      ...(only !== undefined ? { only } : {}),
      rename: renames(cmd.values.rename),
      dryRun: cmd.values['dry-run'] === true,
      moveSecrets: cmd.values['move-secrets'] === true,
      probe: cmd.values['no-probe'] !== true,
    },
    { env: io.env, home: io.home, cwd: io.cwd, credentials: credentials.source, configDir },
  );
  // the source's secrets and every known credential are masked in all output
  const secrets = [...result.secretValues, ...credentials.source.secretValues()];
  const shown: ImportResult = {
    ...result,
    diagnostics: [...credentials.diagnostics, ...result.diagnostics],
  };
  if (cmd.json) {
    printJson(io, maskDeep(resultJson(shown), secrets));
  } else {
    const all = [...shown.diagnostics, ...shown.servers.flatMap((s) => s.diagnostics)];
    printDiagnostics(
      {
        ...io,
        stderr: (text) => {
          io.stderr(maskSecrets(text, secrets));
        },
      },
      all,
    );
    const text = maskSecrets(resultText(shown), secrets);
    if (result.ok) io.stdout(text);
    else io.stderr(text);
  }
  return result.ok ? EXIT_OK : EXIT_FAILURE;
}
