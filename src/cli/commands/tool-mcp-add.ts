/**
 * `codex-mmo tool-mcp add ID … -- COMMAND [ARGS…]` and `tool-mcp add ID --url URL …`: starts a
 * server the way `tool-mcp probe` does, writes `<config>/tool-mcp.d/50-ID.toml` with every tool
 * it offers, and pins it. Refuses, changing nothing, on any error. Credential values are masked.
 */
import {
  type ApprovalMode,
  configFiles,
  loadCredentials,
  maskSecrets,
  REGISTRY_SCHEMA_VERSION,
} from '../../index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import {
  addServer,
  type AddRequest,
  type AddResult,
  type FragmentTarget,
} from '../../features/onboard/index.js';
import { APPROVAL_MODES } from '../../config/registry/index.js';
import { planLaunch } from '../../runtime/probe/index.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp add ID [OPTIONS] [--env-var NAME]... [--env NAME=VALUE]... [--cwd DIR] -- COMMAND [ARGS...]
       codex-mmo tool-mcp add ID [OPTIONS] --url URL [--bearer-token-env-var NAME] [--header-env HEADER=VAR]... [--header NAME=VALUE]...

Start a Tool MCP server exactly as \`tool-mcp probe\` would (stdio: COMMAND with ARGS in a cleared
environment plus the --env-var variables; streamable HTTP: URL with the bearer token and headers
taken from the named variables), list its tools, and write <config-dir>/tool-mcp.d/50-ID.toml:
schema_version ${REGISTRY_SCHEMA_VERSION}, every offered tool (or only the --tools ones) in enabled_tools with its
description as a comment, default_tools_approval_mode = "writes" (or --approval-mode), and
approval_mode = "prompt" for each tool the server annotates destructive. Then pin the surface it
listed in tool-mcp.lock, as \`tool-mcp pin ID\` does; the server is started once.

Nothing is written when ID is invalid or already in the registry, the command line holds a
literal secret (a secret-looking --env or --header, or the value of a credential: pass secrets
through --env-var / --header-env and credentials.env), a named variable is missing, the server
does not start, or the fragment would not validate. A package run through npx or uvx without a
version draws a warning: write the version you reviewed (pkg@1.2.3, pkg==1.2.3).

Options:
  --env-var NAME                 forward this variable to a stdio server (repeatable)
  --env NAME=VALUE               a literal, non-secret environment value (stdio, repeatable)
  --cwd DIR                      working directory of a stdio server (absolute or ~/)
  --url URL                      the server's Streamable HTTP endpoint
  --bearer-token-env-var NAME    send "Authorization: Bearer $NAME" to an HTTP server
  --header-env HEADER=VAR        send header HEADER with the value of variable VAR (repeatable)
  --header NAME=VALUE            a literal, non-secret HTTP header (repeatable)
  --tools A,B                    write only these offered tools into enabled_tools
  --approval-mode MODE           default_tools_approval_mode: auto, prompt, writes or approve
  --startup-timeout SEC          startup_timeout_sec (also bounds this probe)
  --tool-timeout SEC             tool_timeout_sec

Remove a server again with \`codex-mmo tool-mcp remove ID\`.`;

const OPTIONS = {
  'env-var': { type: 'string', multiple: true },
  url: { type: 'string' },
  'bearer-token-env-var': { type: 'string' },
  'header-env': { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  header: { type: 'string', multiple: true },
  tools: { type: 'string' },
  'approval-mode': { type: 'string' },
  'startup-timeout': { type: 'string' },
  'tool-timeout': { type: 'string' },
} as const;

/** `NAME=VALUE` pairs of a repeatable option; a usage error for anything else. */
function pairs(values: unknown, option: string, valueWord: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of strings(values)) {
    const at = item.indexOf('=');
    if (at <= 0)
      throw new UsageError(`--${option} takes NAME=${valueWord}, not '${item.slice(0, 40)}'`);
    const name = item.slice(0, at);
    if (Object.hasOwn(out, name)) throw new UsageError(`--${option} ${name} is given twice`);
    out[name] = item.slice(at + 1);
  }
  return out;
}

function seconds(value: unknown, option: string): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`--${option} takes a positive number of seconds, not '${value}'`);
  }
  return n;
}

/** The add options besides the transport: tools, approval mode and timeouts. */
function settingsOf(values: Record<string, unknown>): Omit<AddRequest, 'id' | 'target'> {
  const mode = values['approval-mode'];
  if (
    mode !== undefined &&
    (typeof mode !== 'string' || !(APPROVAL_MODES as readonly string[]).includes(mode))
  ) {
    throw new UsageError(
      `--approval-mode takes one of ${APPROVAL_MODES.join(', ')}, not '${typeof mode === 'string' ? mode : '?'}'`,
    );
  }
  const tools =
    typeof values.tools === 'string'
      ? values.tools
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
      : undefined;
  if (tools?.length === 0)
    throw new UsageError('--tools takes a comma-separated list of tool names');
  const startup = seconds(values['startup-timeout'], 'startup-timeout');
  const tool = seconds(values['tool-timeout'], 'tool-timeout');
  return {
    ...(tools !== undefined ? { tools: [...new Set(tools)] } : {}),
    ...(mode !== undefined ? { approvalMode: mode as ApprovalMode } : {}),
    ...(startup !== undefined ? { startupTimeoutSec: startup } : {}),
    ...(tool !== undefined ? { toolTimeoutSec: tool } : {}),
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The server's transport fields from the command line; usage errors for contradictions. */
function targetOf(values: Record<string, unknown>, command: readonly string[]): FragmentTarget {
  const url = typeof values.url === 'string' ? values.url : undefined;
  const envVars = strings(values['env-var']);
  const bearer =
    typeof values['bearer-token-env-var'] === 'string' ? values['bearer-token-env-var'] : undefined;
  const headers = strings(values['header-env']);
  const env = pairs(values.env, 'env', 'VALUE');
  const literalHeaders = pairs(values.header, 'header', 'VALUE');
  const cwd = typeof values.cwd === 'string' ? values.cwd : undefined;
  if (url !== undefined) {
    if (command.length > 0) throw new UsageError('give either --url URL or -- COMMAND, not both');
    if (envVars.length > 0 || Object.keys(env).length > 0 || cwd !== undefined) {
      throw new UsageError(
        '--env-var, --env and --cwd are for stdio servers; an HTTP server takes --header-env and --header',
      );
    }
    const headerEnv: Record<string, string> = {};
    for (const header of headers) {
      const at = header.indexOf('=');
      if (at <= 0 || at === header.length - 1) {
        throw new UsageError(`--header-env takes HEADER=VARIABLE, not '${header}'`);
      }
      headerEnv[header.slice(0, at)] = header.slice(at + 1);
    }
    return {
      transport: 'streamable_http',
      url,
      ...(bearer !== undefined ? { bearerTokenEnvVar: bearer } : {}),
      headerEnv,
      ...(Object.keys(literalHeaders).length > 0 ? { headers: literalHeaders } : {}),
    };
  }
  const [executable, ...args] = command;
  if (executable === undefined) {
    throw new UsageError('missing the server: give -- COMMAND [ARGS...] or --url URL');
  }
  if (bearer !== undefined || headers.length > 0 || Object.keys(literalHeaders).length > 0) {
    throw new UsageError(
      '--bearer-token-env-var, --header-env and --header are for HTTP servers (--url)',
    );
  }
  return {
    transport: 'stdio',
    command: executable,
    args,
    envVars,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
}

function resultJson(result: AddResult): unknown {
  return {
    ok: result.ok,
    id: result.id,
    file: result.file,
    written: result.written,
    ...(result.definition !== undefined ? { server: result.definition } : {}),
    ...(result.serverInfo !== undefined ? { server_info: result.serverInfo } : {}),
    ...(result.protocolVersion !== undefined ? { protocol_version: result.protocolVersion } : {}),
    tools: result.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
    })),
    prompt_tools: result.promptTools,
    ...(result.pin !== undefined
      ? {
          lock_file: result.pin.lockFile,
          pinned: (result.pin.pin?.tools ?? []).map((t) => ({ name: t.name, digest: t.digest })),
        }
      : {}),
    diagnostics: result.diagnostics,
  };
}

function resultText(result: AddResult): string {
  if (!result.ok) {
    return `codex-mmo: nothing was added; ${result.file} and tool-mcp.lock are unchanged. Fix the errors above and run add again\n`;
  }
  const count = result.definition?.enabled_tools.length ?? 0;
  const lines = [
    `Added server '${result.id}' with ${count} tool${count === 1 ? '' : 's'} to ${result.file}`,
  ];
  if (result.promptTools.length > 0) {
    lines.push(`  always asks before: ${result.promptTools.join(', ')} (annotated destructive)`);
  }
  if (result.pin !== undefined) lines.push(`Pinned its tool surface in ${result.pin.lockFile}`);
  lines.push(
    `Review the fragment, remove tools no profile should get, then run \`codex-mmo tool-mcp validate\``,
  );
  return `${lines.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const command = split === -1 ? [] : args.slice(split + 1);
  const cmd = parseCommand(own, io, OPTIONS, { min: 1, max: 1, names: ['ID'] });
  if (cmd.help) return printHelp(io, USAGE);
  const id = cmd.positionals[0] ?? '';
  const target = targetOf(cmd.values, command);
  const settings = settingsOf(cmd.values);
  const configDir = cmd.dirs.configDir;
  const credentials = await loadCredentials(configFiles(configDir).credentials, io.env);
  const ctx = { env: io.env, home: io.home, cwd: io.cwd, credentials: credentials.source };
  const result = await addServer({ id, target, ...settings }, { ...ctx, configDir });
  // every credential value the server could have been given, masked in all output
  const secrets = planLaunch(
    result.definition ??
      (target.transport === 'stdio'
        ? {
            id,
            transport: 'stdio',
            command: target.command,
            env_vars: target.envVars,
            ...(target.env !== undefined ? { env: target.env } : {}),
            enabled_tools: [],
            default_tools_approval_mode: 'writes',
          }
        : {
            id,
            transport: 'streamable_http',
            url: target.url,
            ...(target.bearerTokenEnvVar !== undefined
              ? { bearer_token_env_var: target.bearerTokenEnvVar }
              : {}),
            env_http_headers: target.headerEnv,
            enabled_tools: [],
            default_tools_approval_mode: 'writes',
          }),
    ctx,
  ).secrets;
  const diagnostics = [...credentials.diagnostics, ...result.diagnostics];
  const shown = { ...result, diagnostics };
  if (cmd.json) {
    printJson(io, maskDeep(resultJson(shown), secrets));
  } else {
    printDiagnostics(
      {
        ...io,
        stderr: (text) => {
          io.stderr(maskSecrets(text, secrets));
        },
      },
      diagnostics,
    );
    const text = maskSecrets(resultText(shown), secrets);
    if (result.ok) io.stdout(text);
    else io.stderr(text);
  }
  return result.ok ? EXIT_OK : EXIT_FAILURE;
}
