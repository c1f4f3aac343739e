/**
 * `codex-mmo scripted-model [--port N] [--script FILE]`: serves the built-in scripted model on
 * 127.0.0.1 in the foreground until SIGINT or SIGTERM, and prints the `codex-base.toml` lines
 * that point every Codex of codex-mmo at it, so a profile can be tried end-to-end offline.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

import { stringify } from 'smol-toml';

import { describeError } from '../../index.js';
import {
  SCRIPTED_MODEL_NAME,
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type ScriptedItem,
} from '../../runtime/codex/index.js';
import { DEFAULT_SCRIPT, parseModelScript, scriptHandler } from '../../features/onboard/index.js';
import { UsageError, parseCommand, printFailure, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo scripted-model [--port N] [--script FILE]

Serve codex-mmo's built-in scripted model (a local stand-in for the OpenAI Responses API) on
127.0.0.1 until interrupted (Ctrl-C, SIGTERM), and print the codex-base.toml lines that point
Codex at it. Put those lines in <config-dir>/codex-base.toml and every \`codex-mmo run\`, \`exec\`
and participant talks to it: no API key, no network. Remove them to use a real model again.

Without --script the model answers every turn with the tools it was offered. A script is JSON:

  {"steps": [
    {"tool": "everything.echo", "arguments": {"message": "hi"}},
    {"shell": "ls -la"},
    {"reply": "done; the last tool said: {{last_output}}"}
  ]}

Each conversation takes the next step per model turn: "tool" calls a Tool MCP tool (SERVER.TOOL:
the registry ID and the server's tool name, sent under the names Codex offers, "-" as "_"),
"shell" runs a command through Codex's shell tool (sandbox and approvals apply), "function" calls
any other function Codex offers, with its namespace when Codex puts it in one — a native role is
started with {"function": "spawn_agent", "namespace": "multi_agent_v1", "arguments":
{"agent_type": "reviewer", "message": "..."}} — "reply" ends
the turn with a message ({{last_output}}: the latest tool result; {{offered_tools}}: the tools
offered). After the last step the model replies "[scripted model] script finished". To give roles
different steps, use {"scripts": [{"when_offered": "mmo_mesh", "steps": [...]}, {"steps": [...]}]}:
each turn follows the first section whose server the agent is offered. A request that offers no
tool at all (Codex's own, such as 0.171's task title) is answered with a reply and takes no step.

Options:
  --port N         port to listen on (default: a free port)
  --script FILE    the steps to follow (JSON, see above)`;

/** Prints the base-settings lines (or JSON), then serves until a signal. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    { port: { type: 'string' }, script: { type: 'string' } },
    { min: 0, max: 0 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const portText = typeof cmd.values.port === 'string' ? cmd.values.port : undefined;
  const port = portText === undefined ? 0 : Number(portText);
  if (!/^\d+$/.test(portText ?? '0') || port > 65535) {
    throw new UsageError(`--port takes a port number (0-65535), not '${portText ?? ''}'`);
  }
  let script = DEFAULT_SCRIPT;
  if (typeof cmd.values.script === 'string') {
    const file = resolve(io.cwd, cmd.values.script);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return printFailure(io, cmd.json, [
        {
          severity: 'error',
          code: 'model-script-unreadable',
          message: `cannot read the script (${describeError(error)})`,
          file,
        },
      ]);
    }
    const parsed = parseModelScript(text, file);
    if (parsed.script === undefined) return printFailure(io, cmd.json, parsed.diagnostics);
    script = parsed.script;
  }

  const play = scriptHandler(script);
  const handler = (request: ModelRequest): ScriptedItem[] => {
    const items = play(request) as ScriptedItem[];
    io.stderr(`scripted-model: turn ${request.index}: ${items.map(describeItem).join(', ')}\n`);
    return items;
  };
  let model;
  try {
    model = await startScriptedModel(handler, { port });
  } catch (error) {
    return printFailure(io, cmd.json, [
      {
        severity: 'error',
        code: 'model-port-unavailable',
        message: `cannot listen on 127.0.0.1:${port} (${describeError(error)}); choose another --port or leave it out for a free one`,
      },
    ]);
  }
  const base = { ...scriptedProviderConfig(model.baseUrl), features: { apps: false } };
  if (cmd.json) {
    printJson(io, { base_url: model.baseUrl, model: SCRIPTED_MODEL_NAME, codex_base: base });
  } else {
    io.stdout(
      `# codex-base.toml lines for codex-mmo's scripted model at ${model.baseUrl}\n` +
        `# (the apps feature is off: Codex's built-in connectors would reach the network)\n` +
        `${stringify(base)}\n`,
    );
  }
  io.stderr(`scripted-model: serving ${model.baseUrl} until interrupted (Ctrl-C)\n`);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    const stop = (s: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(s);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await model.close();
  io.stderr(
    `scripted-model: stopped on ${signal} after ${model.requests.length} request${model.requests.length === 1 ? '' : 's'}\n`,
  );
  if (model.errors.length > 0) {
    io.stderr(
      `scripted-model: ${model.errors.length} request(s) failed: ${model.errors[0] ?? ''}\n`,
    );
    return EXIT_FAILURE;
  }
  return EXIT_OK;
}

function describeItem(item: ScriptedItem): string {
  if (item.type === 'message') {
    return `reply (${item.text.length} characters)`;
  }
  if (item.type === 'custom_tool_call')
    return `call ${item.name} (${item.input.length} characters)`;
  if (item.type === 'tool_search_call') return 'tool search';
  return `call ${item.namespace !== undefined ? `${item.namespace}.` : ''}${item.name}`;
}
