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
import { maskDeep, suggest } from '../../foundation/diagnostics/index.js';
import { terminalSafe } from '../../foundation/text/index.js';
import {
  addServer,
  type AddRequest,
  type AddResult,
  type FragmentTarget,
} from '../../features/onboard/index.js';
import { APPROVAL_MODES } from '../../config/registry/index.js';
import { planLaunch } from '../../runtime/upstream/index.js';
import { UsageError, parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo tool-mcp add ID [OPTIONS] [-e NAME]... [-e NAME=VALUE]... [--cwd DIR] -- COMMAND [ARGS...]
       codex-mmo tool-mcp add ID [OPTIONS] --url URL [-H 'NAME: $VAR']... [-H 'NAME: VALUE']... [--bearer-token-env-var NAME]
       codex-mmo tool-mcp add --transport http ID URL [OPTIONS] [-H 'NAME: $VAR']...

Start a Tool MCP server exactly as \`tool-mcp probe\` would (stdio: COMMAND with ARGS in a cleared
environment plus the -e variables; streamable HTTP: URL with the bearer token and headers taken
from the named variables), list its tools, and write <config-dir>/tool-mcp.d/50-ID.toml:
schema_version ${REGISTRY_SCHEMA_VERSION}, every offered tool (or only the --tools ones) in enabled_tools with its
description as a comment, default_tools_approval_mode = "writes" (or --approval-mode), and
approval_mode = "prompt" for each tool the server annotates destructive. Then pin the surface it
listed in tool-mcp.lock, as \`tool-mcp pin ID\` does; the server is started once.

Nothing is written when ID is invalid or already in the registry (unless --replace), the command
line holds a literal secret (a secret-looking -e NAME=VALUE or -H header, or the value of a
credential: name the variable instead, -e NAME or -H 'NAME: $VAR', with its value in
credentials.env), a named variable is missing, the server does not start, or the fragment would
not validate. A package run through npx or uvx without a version draws a warning: write the
version you reviewed (pkg@1.2.3, pkg==1.2.3).

Options:
  -t, --transport T              stdio or http (also streamable_http); default: http with a
                                 URL, stdio with -- COMMAND
  --url URL                      the server's Streamable HTTP endpoint (or give it after ID)
  -e, --env NAME                 forward variable NAME to a stdio server, its value read from
                                 credentials.env or the environment (env_vars; repeatable)
  -e, --env NAME=VALUE           a literal, non-secret environment value (env; repeatable)
  --env-var NAME                 the same as -e NAME
  --cwd DIR                      working directory of a stdio server (absolute or ~/)
  -H, --header 'NAME: $VAR'      send header NAME with the value of variable VAR
                                 (env_http_headers; 'Authorization: Bearer $VAR' sets
                                 bearer_token_env_var; repeatable)
  -H, --header 'NAME: VALUE'     a literal, non-secret HTTP header (http_headers; NAME=VALUE too)
  --header-env NAME=VAR          the same as -H 'NAME: $VAR'
  --bearer-token-env-var NAME    send "Authorization: Bearer $NAME" to an HTTP server
  --tools A,B                    write only these offered tools into enabled_tools
  --approval-mode MODE           default_tools_approval_mode: auto, prompt, writes or approve
  --startup-timeout SEC          startup_timeout_sec (also bounds this probe)
  --tool-timeout SEC             tool_timeout_sec
  --replace                      replace the existing definition of ID (its fragment entries
                                 and its pin) once the new server has started

Also accepted as other MCP clients spell them: \`claude mcp add --transport http ID URL -H
"Authorization: Bearer $TOKEN"\`, \`codex mcp add ID --env KEY=VALUE -- COMMAND ARGS\`.
Remove a server again with \`codex-mmo tool-mcp remove ID\`.`;

const OPTIONS = {
  transport: { type: 'string', short: 't' },
  'env-var': { type: 'string', multiple: true },
  url: { type: 'string' },
  'bearer-token-env-var': { type: 'string' },
  'header-env': { type: 'string', multiple: true },
  env: { type: 'string', multiple: true, short: 'e' },
  cwd: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  tools: { type: 'string' },
  'approval-mode': { type: 'string' },
  'startup-timeout': { type: 'string' },
  'tool-timeout': { type: 'string' },
  replace: { type: 'boolean', default: false },
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

const TRANSPORTS: Readonly<Record<string, 'stdio' | 'streamable_http'>> = {
  stdio: 'stdio',
  http: 'streamable_http',
  streamable_http: 'streamable_http',
  'streamable-http': 'streamable_http',
};

/** `$VAR` or `${VAR}`: a whole value that names one variable. */
const VARIABLE = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/;
/** `Bearer $VAR` or `Bearer ${VAR}`. */
const BEARER_VARIABLE = /^Bearer\s+\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/i;

/** The variable a header value refers to as a whole, or undefined for a literal value. */
function variableOf(pattern: RegExp, value: string): string | undefined {
  const match = pattern.exec(value);
  return match === null ? undefined : (match[1] ?? match[2]);
}

/** The transport `--transport` names (or undefined); a usage error for any other word. */
function transportOf(value: unknown): 'stdio' | 'streamable_http' | undefined {
  if (typeof value !== 'string') return undefined;
  const transport = Object.hasOwn(TRANSPORTS, value) ? TRANSPORTS[value] : undefined;
  if (transport === undefined) {
    const near = suggest(value, Object.keys(TRANSPORTS));
    throw new UsageError(
      `--transport takes stdio or http (streamable_http), not '${value.slice(0, 40)}'${near !== undefined ? `; did you mean '${near}'?` : ''}${value === 'sse' ? ' (Codex does not speak SSE)' : ''}`,
    );
  }
  return transport;
}

/** `-e NAME` (a forwarded variable) and `-e NAME=VALUE` (a literal), with `--env-var NAME`. */
function envOf(values: Record<string, unknown>): {
  envVars: string[];
  env: Record<string, string>;
} {
  const envVars = strings(values['env-var']);
  const literals: string[] = [];
  for (const item of strings(values.env)) {
    if (item.includes('=')) literals.push(item);
    else if (envVars.includes(item)) throw new UsageError(`-e ${item} is given twice`);
    else envVars.push(item);
  }
  return { envVars, env: pairs(literals, 'env', 'VALUE') };
}

/** The HTTP header options: `-H 'Name: value'` (or `Name=value`) and `--header-env NAME=VAR`. */
function headersOf(values: Record<string, unknown>): {
  headerEnv: Record<string, string>;
  literal: Record<string, string>;
  bearer: string | undefined;
} {
  const headerEnv: Record<string, string> = {};
  const literal: Record<string, string> = {};
  let bearer: string | undefined;
  const taken = (name: string): boolean =>
    Object.keys(headerEnv)
      .concat(Object.keys(literal), bearer !== undefined ? ['authorization'] : [])
      .some((n) => n.toLowerCase() === name.toLowerCase());
  for (const header of strings(values['header-env'])) {
    const at = header.indexOf('=');
    if (at <= 0 || at === header.length - 1) {
      throw new UsageError(`--header-env takes HEADER=VARIABLE, not '${header.slice(0, 40)}'`);
    }
    const name = header.slice(0, at);
    if (taken(name)) throw new UsageError(`header ${name} is given twice`);
    headerEnv[name] = header.slice(at + 1);
  }
  for (const header of strings(values.header)) {
    const colon = header.indexOf(':');
    const equals = header.indexOf('=');
    const at = colon >= 0 && (equals < 0 || colon < equals) ? colon : equals;
    const name = at > 0 ? header.slice(0, at).trim() : '';
    if (name === '') {
      throw new UsageError(`-H takes 'NAME: VALUE' (or NAME=VALUE), not '${header.slice(0, 40)}'`);
    }
    if (taken(name)) throw new UsageError(`header ${name} is given twice`);
    const value = header.slice(at + 1).trim();
    const variable = variableOf(VARIABLE, value);
    const bearerVariable =
      name.toLowerCase() === 'authorization' ? variableOf(BEARER_VARIABLE, value) : undefined;
    if (variable !== undefined) headerEnv[name] = variable;
    else if (bearerVariable !== undefined) bearer = bearerVariable;
    else if (/\$(?:[A-Za-z_{])/.test(value)) {
      throw new UsageError(
        `-H ${name} mixes text with a variable; a header takes one variable's whole value: -H '${name}: $VAR' with the complete value in VAR (or 'Authorization: Bearer $VAR')`,
      );
    } else literal[name] = value;
  }
  return { headerEnv, literal, bearer };
}

/** The server's transport fields from the command line; usage errors for contradictions. */
function targetOf(
  values: Record<string, unknown>,
  positionalUrl: string | undefined,
  command: readonly string[],
): FragmentTarget {
  const transport = transportOf(values.transport);
  const option = typeof values.url === 'string' ? values.url : undefined;
  if (option !== undefined && positionalUrl !== undefined) {
    throw new UsageError('give the URL once: after ID or with --url');
  }
  if (positionalUrl !== undefined && !/^https?:\/\//i.test(positionalUrl)) {
    throw new UsageError(
      `unexpected argument '${positionalUrl.slice(0, 40)}': a stdio server's command goes after '--' (tool-mcp add ID -- COMMAND ARGS), an HTTP server's URL starts with http:// or https://`,
    );
  }
  const url = option ?? positionalUrl;
  const { envVars, env } = envOf(values);
  const headers = headersOf(values);
  const optionBearer =
    typeof values['bearer-token-env-var'] === 'string' ? values['bearer-token-env-var'] : undefined;
  if (optionBearer !== undefined && headers.bearer !== undefined) {
    throw new UsageError(
      "give the bearer token once: --bearer-token-env-var or -H 'Authorization'",
    );
  }
  const bearer = optionBearer ?? headers.bearer;
  const cwd = typeof values.cwd === 'string' ? values.cwd : undefined;
  const http = transport === 'streamable_http' || (transport === undefined && url !== undefined);
  if (http) {
    if (url === undefined)
      throw new UsageError('--transport http needs the URL: ID URL or --url URL');
    if (command.length > 0) throw new UsageError('give either a URL or -- COMMAND, not both');
    if (envVars.length > 0 || Object.keys(env).length > 0 || cwd !== undefined) {
      throw new UsageError(
        '-e/--env, --env-var and --cwd are for stdio servers; an HTTP server takes -H and --bearer-token-env-var',
      );
    }
    return {
      transport: 'streamable_http',
      url,
      ...(bearer !== undefined ? { bearerTokenEnvVar: bearer } : {}),
      headerEnv: headers.headerEnv,
      ...(Object.keys(headers.literal).length > 0 ? { headers: headers.literal } : {}),
    };
  }
  if (url !== undefined) throw new UsageError('--transport stdio takes -- COMMAND, not a URL');
  const [executable, ...args] = command;
  if (executable === undefined) {
    throw new UsageError('missing the server: give -- COMMAND [ARGS...] or a URL');
  }
  if (
    bearer !== undefined ||
    Object.keys(headers.headerEnv).length > 0 ||
    Object.keys(headers.literal).length > 0
  ) {
    throw new UsageError(
      '-H/--header, --header-env and --bearer-token-env-var are for HTTP servers (a URL)',
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
    lines.push(
      terminalSafe(
        `  always asks before: ${result.promptTools.join(', ')} (annotated destructive)`,
      ),
    );
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
  const cmd = parseCommand(own, io, OPTIONS, { min: 1, max: 2, names: ['ID', 'URL'] });
  if (cmd.help) return printHelp(io, USAGE);
  const id = cmd.positionals[0] ?? '';
  const target = targetOf(cmd.values, cmd.positionals[1], command);
  const settings = { ...settingsOf(cmd.values), replace: cmd.values.replace === true };
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
