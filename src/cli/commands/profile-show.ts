/**
 * `codex-mmo profile show P [--resolved] [--json]`: a profile as written, or with --resolved its
 * plan against the operator registry — processes, per-role grants, lifecycle waits, mmo_mesh
 * timeouts and the variable names each process receives (never their values).
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import {
  loadRegistry,
  openPack,
  planToJson,
  type ProfilePack,
  type ResolvedPlan,
  resolvePack,
  summarize,
} from '../../index.js';
import { profileToJson, withGrantProblems } from '../../config/profile/index.js';
import { parseCommand, printDiagnostics, printFailure, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo profile show P [--resolved] [--json]

Show profile P as written. P is an installed pack name or a path to a pack directory.
With --resolved, resolve its grants against the operator registry and show the plan: each Codex
process (root role, native roles, servers, lifecycle wait, environment variable names), and per
role the effective enabled_tools, disabled_tools, required and the mmo_mesh tool timeout.

Options:
  --resolved           resolve grants against the registry
Exit status: 0 ok, 1 the profile is invalid or its grants do not resolve.`;

const list = (items: readonly string[]): string => (items.length > 0 ? items.join(', ') : '-');

function profileText(pack: ProfilePack): string {
  const lines: string[] = [];
  // descriptions are a pack author's text: shown terminal-safe
  lines.push(
    terminalSafe(
      `profile ${pack.name}${pack.description !== undefined ? ` — ${pack.description}` : ''}`,
    ),
  );
  lines.push(`pack: ${pack.dir}`);
  lines.push(`root: ${pack.root}`, '');
  const roles = Object.values(pack.agents);
  lines.push(
    formatTable(
      ['ROLE', 'PERMISSIONS', 'NETWORK', 'MODEL', 'NATIVE_AGENTS', 'SPAWN', 'CONTROL'],
      roles.map((r) => [
        r.name,
        r.permissions,
        r.network_access ? 'yes' : 'no',
        r.model ?? '-',
        list(r.native_agents),
        list(r.spawn),
        list(r.control),
      ]),
    ).trimEnd(),
    '',
  );
  const grants = roles.flatMap((r) =>
    Object.values(r.grants).map((g) => [
      r.name,
      g.server,
      g.required ? 'yes' : 'no',
      g.enabled_tools !== undefined ? g.enabled_tools.join(', ') : "(operator's whole list)",
    ]),
  );
  if (grants.length > 0) {
    lines.push(formatTable(['ROLE', 'SERVER', 'REQUIRED', 'ENABLED_TOOLS'], grants).trimEnd(), '');
  } else {
    lines.push('no Tool MCP grants', '');
  }
  for (const r of roles) {
    const source = r.instructions_file !== undefined ? `from ${r.instructions_file}` : 'inline';
    lines.push(terminalSafe(`${r.name}: ${r.description}`));
    lines.push(`  instructions ${source}, ${r.instructions.length} characters`);
  }
  return `${lines.join('\n')}\n`;
}

function planText(plan: ResolvedPlan): string {
  const lines: string[] = [`profile ${plan.profile} resolved (root role: ${plan.root})`, ''];
  lines.push('Codex processes:');
  lines.push(
    formatTable(
      ['ROOT', 'ROLES', 'SERVERS', 'LIFECYCLE_WAIT', 'MMO_MESH', 'ENV'],
      plan.processes.map((p) => [
        p.root,
        list(p.roles),
        list(p.servers),
        `${p.lifecycle_wait_sec} s`,
        p.mesh ? 'yes' : 'no',
        list(p.env),
      ]),
    ).trimEnd(),
    '',
  );
  lines.push('Grants:');
  const rows = Object.values(plan.roles).flatMap((r) =>
    Object.entries(r.grants).map(([server, g]) => [
      r.name,
      server,
      g.required ? 'yes' : 'no',
      list(g.enabled_tools),
      list(g.disabled_tools),
    ]),
  );
  lines.push(
    rows.length > 0
      ? formatTable(
          ['ROLE', 'SERVER', 'REQUIRED', 'ENABLED_TOOLS', 'DISABLED_TOOLS'],
          rows,
        ).trimEnd()
      : '  no Tool MCP grants',
    '',
  );
  lines.push('mmo_mesh tool timeouts:');
  lines.push(
    formatTable(
      ['ROLE', 'MESH_TOOL_TIMEOUT', 'LIFECYCLE_WAIT_AS_ROOT'],
      Object.values(plan.roles).map((r) => [
        r.name,
        r.mesh_tool_timeout_sec === null ? '- (no spawn/control)' : `${r.mesh_tool_timeout_sec} s`,
        `${r.lifecycle_wait_sec} s`,
      ]),
    ).trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    { resolved: { type: 'boolean', default: false } },
    { min: 1, max: 1 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const resolvedView = cmd.values.resolved === true;
  const { loaded } = await openPack(cmd.positionals[0] ?? '', cmd.dirs.dataDir, io.cwd);
  const pack = loaded.pack;
  if (pack === undefined) {
    // with --resolved, the grants that are valid on their own are still checked, so that one
    // run reports every problem
    const diagnostics = resolvedView
      ? withGrantProblems(loaded, await loadRegistry(cmd.dirs.configDir))
      : loaded.diagnostics;
    return printFailure(io, cmd.json, diagnostics);
  }
  if (!resolvedView) {
    if (cmd.json) {
      printJson(io, {
        ok: true,
        ...profileToJson(pack, { path: pack.dir }),
        diagnostics: loaded.diagnostics,
      });
    } else {
      printDiagnostics(io, loaded.diagnostics);
      io.stdout(profileText(pack));
    }
    return EXIT_OK;
  }
  const resolved = await resolvePack(pack, cmd.dirs.configDir);
  const diagnostics = [...loaded.diagnostics, ...resolved.diagnostics];
  const plan = resolved.plan;
  if (cmd.json) {
    printJson(
      io,
      plan !== undefined
        ? { ok: true, ...planToJson(plan), diagnostics }
        : { ok: false, profile: pack.name, diagnostics },
    );
    return plan !== undefined ? EXIT_OK : EXIT_FAILURE;
  }
  printDiagnostics(io, diagnostics);
  if (plan === undefined) {
    const { errors } = summarize(diagnostics);
    io.stdout(
      `profile ${pack.name} does not resolve against the registry (${errors} error${errors === 1 ? '' : 's'})\n`,
    );
    return EXIT_FAILURE;
  }
  io.stdout(planText(plan));
  return EXIT_OK;
}
