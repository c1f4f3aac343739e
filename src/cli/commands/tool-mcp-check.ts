/**
 * `codex-mmo tool-mcp list --check` (also `tool-mcp status`): starts every server of the registry
 * as `tool-mcp probe` does, four at a time, and prints one table of their live health. Not a
 * command of its own; `tool-mcp-list.ts` hands over to it.
 */
import {
  configFiles,
  type Diagnostic,
  hasErrors,
  loadCredentials,
  loadRegistry,
  maskSecrets,
} from '../../index.js';
import { readLockFile } from '../../config/lock/index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import { formatTable } from '../../foundation/text/index.js';
import { checkServers, type ServerCheck } from '../../features/onboard/index.js';
import { planLaunch, type LaunchContext } from '../../runtime/upstream/index.js';
import { printDiagnostics, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const PIN_TEXT: Readonly<Record<ServerCheck['pin'], string>> = {
  match: 'pinned',
  drift: 'drift',
  'not-pinned': 'not pinned',
  unchecked: 'pinned (unchecked)',
};

function statusText(check: ServerCheck): string {
  switch (check.status) {
    case 'ok':
      return 'ok';
    case 'missing-variable':
      return `missing variable: ${check.missing.join(', ')}`;
    case 'invalid':
      return 'invalid definition';
    case 'failed':
      return `failed: ${check.reason ?? 'did not start'}`;
  }
}

function checkJson(check: ServerCheck): Record<string, unknown> {
  return {
    id: check.id,
    transport: check.transport ?? null,
    status: check.status,
    ...(check.reason !== undefined ? { reason: check.reason } : {}),
    missing_variables: check.missing,
    tools_offered: check.tools ?? null,
    tools_enabled: check.enabledTools,
    pin: check.pin,
    ok: check.ok,
    ...(check.timeToReadyMs !== undefined ? { time_to_ready_ms: check.timeToReadyMs } : {}),
    diagnostics: check.diagnostics,
  };
}

/** Runs the check for `list --check`; `timeoutSec` bounds each server's start-up. */
export async function runCheck(
  io: CliIo,
  dirs: { readonly configDir: string },
  json: boolean,
  timeoutSec: number | undefined,
): Promise<number> {
  const registry = await loadRegistry(dirs.configDir);
  const [credentials, lock] = await Promise.all([
    loadCredentials(configFiles(dirs.configDir).credentials, io.env),
    readLockFile(dirs.configDir),
  ]);
  const ctx: LaunchContext = {
    env: io.env,
    home: io.home,
    cwd: io.cwd,
    credentials: credentials.source,
  };
  // every credential value any server could be given, masked in all output
  const secrets = [...registry.servers.values()].flatMap(
    (entry) => planLaunch(entry.definition, ctx).secrets,
  );
  const checks = await checkServers(registry, () => ({ ...ctx, lock }), {
    ...(timeoutSec !== undefined ? { timeoutSec } : {}),
  });
  const notes: Diagnostic[] = [
    ...credentials.diagnostics,
    ...registry.diagnostics.filter((d) => d.severity !== 'info'),
  ];
  const ok = checks.every((c) => c.ok) && !hasErrors(notes);
  if (json) {
    printJson(io, maskDeep({ ok, servers: checks.map(checkJson), diagnostics: notes }, secrets));
    return ok ? EXIT_OK : EXIT_FAILURE;
  }
  const out: CliIo = {
    ...io,
    stdout: (text) => {
      io.stdout(maskSecrets(text, secrets));
    },
    stderr: (text) => {
      io.stderr(maskSecrets(text, secrets));
    },
  };
  printDiagnostics(out, [
    ...notes,
    ...checks
      .flatMap((c) => (c.status === 'invalid' ? [] : c.diagnostics))
      .filter((d) => d.severity === 'error'),
  ]);
  if (checks.length === 0) {
    out.stdout(`No Tool MCP servers registered in ${dirs.configDir}/tool-mcp.d.\n`);
    return ok ? EXIT_OK : EXIT_FAILURE;
  }
  const rows = checks.map((c) => [
    c.id,
    c.transport ?? '',
    statusText(c),
    c.tools !== undefined ? String(c.tools) : '-',
    PIN_TEXT[c.pin],
  ]);
  out.stdout(formatTable(['ID', 'TRANSPORT', 'STATUS', 'TOOLS', 'PIN'], rows));
  return ok ? EXIT_OK : EXIT_FAILURE;
}
