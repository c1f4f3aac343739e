/**
 * `codex-mmo snapshot show ID [--json]`: one stored snapshot (full id or unique prefix, with or
 * without `sha256:`), verified on read: its profile, granted servers, processes, base settings
 * and pins. Only variable names appear, never values.
 */
import { formatTable } from '../../foundation/text/index.js';
import {
  planOfSnapshot,
  planToJson,
  readSnapshot,
  type ResolvedPlan,
  type StoredSnapshot,
} from '../../index.js';
import { referencedEnvVars } from '../../config/registry/index.js';
import { parseCommand, printCaughtError, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot show ID [--json]

Show a stored snapshot. ID is 'sha256:<hex>' or a unique prefix of the hex digits (with or
without 'sha256:'). The snapshot is verified against its id before anything is shown.
Exit status: 0 shown, 1 no such snapshot or it is damaged, 2 a malformed or ambiguous ID.

JSON: {"id", "dir", "snapshot": {...}, "plan": {"profile", "root", "roles", "processes"}}`;

function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : '-';
}

function describe(stored: StoredSnapshot, plan: ResolvedPlan): string {
  const { snapshot } = stored;
  const { profile } = snapshot;
  const out: string[] = [stored.id, `stored in ${stored.dir}`, ''];
  out.push(
    `Profile ${profile.name} (root ${profile.root})${profile.description !== undefined ? `: ${profile.description}` : ''}`,
    '',
    'Roles:',
  );
  for (const [name, role] of Object.entries(profile.agents)) {
    out.push(
      `  ${name}: ${role.description}`,
      `    permissions ${role.permissions}, network ${role.network_access ? 'on' : 'off'}${role.model !== undefined ? `, model ${role.model}` : ''}`,
      `    native ${list(role.native_agents)}; spawn ${list(role.spawn)}; control ${list(role.control)}`,
    );
    const grants = plan.roles[name]?.grants ?? {};
    for (const [server, grant] of Object.entries(grants)) {
      out.push(
        `    ${server}: ${grant.enabled_tools.join(', ')}${grant.required ? ' (required)' : ''}`,
      );
    }
  }
  out.push('', 'Servers:');
  const serverRows = Object.values(snapshot.servers).map((d) => [
    `  ${d.id}`,
    d.transport,
    d.transport === 'stdio' ? d.command : d.url,
    list(referencedEnvVars(d)),
  ]);
  out.push(
    serverRows.length > 0
      ? formatTable(['  ID', 'TRANSPORT', 'COMMAND/URL', 'VARIABLES'], serverRows).trimEnd()
      : '  (none)',
  );
  out.push('', 'Processes:');
  for (const p of plan.processes) {
    out.push(
      `  ${p.root}: roles ${list(p.roles)}; servers ${list(p.servers)}; mesh ${p.mesh ? 'yes' : 'no'}; lifecycle wait ${p.lifecycle_wait_sec}s; variables ${list(p.env)}`,
    );
  }
  out.push('', `Base settings: ${list(Object.keys(snapshot.base))}`);
  const pins = Object.entries(snapshot.pins).map(([s, p]) => `${s} (${p.length} tools)`);
  out.push(`Pins: ${list(pins)}`);
  return `${out.join('\n')}\n`;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  let stored;
  let plan;
  try {
    stored = await readSnapshot(cmd.dirs.dataDir, cmd.positionals[0] ?? '');
    plan = planOfSnapshot(stored.snapshot);
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
  if (cmd.json) {
    printJson(io, {
      id: stored.id,
      dir: stored.dir,
      snapshot: stored.snapshot,
      plan: planToJson(plan),
    });
    return EXIT_OK;
  }
  io.stdout(describe(stored, plan));
  return EXIT_OK;
}
