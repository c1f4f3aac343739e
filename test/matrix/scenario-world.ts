/**
 * The operator world of one scenario: the registry (`notes`, `vault` with the canary credential
 * in credentials.env, both logging every call that reaches them), the team's profile pack, and
 * the Codex binary of the scenario's version. Built on the session tests' world helpers.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { INSTALLED_CODEX } from '../support/codex-bin.js';
import { echoServer, makeWorld, profileToml, type World } from '../support/world.js';
import type { CodexVersion, Scenario } from './scenario-matrix.js';
import { REGISTRY, WRITING_TOOLS, teamRoles } from './scenario-team.js';

export interface ScenarioWorld {
  readonly world: World;
  readonly canary: string;
  /** The global options: the world's directories and the scenario's Codex. */
  readonly dirArgs: readonly string[];
  /** Server → the file its calls are logged to. */
  readonly callLogs: Readonly<Record<string, string>>;
}

/** The launcher of an installed Codex series (`--codex-bin`). */
export function codexBinOf(version: CodexVersion): string {
  const found = INSTALLED_CODEX.find((c) => c.series === version);
  if (found === undefined) throw new Error(`Codex ${version} is not installed`);
  return found.launcher;
}

function registryText(root: string, scenario: Scenario): string {
  const approval = scenario.approval === 'auto' ? 'approve' : 'writes';
  return Object.entries(REGISTRY)
    .map(([server, tools]) =>
      echoServer(server, {
        tools: tools.map((t) => (WRITING_TOOLS.has(`${server}.${t}`) ? `${t}!` : t)).join(','),
        enabled: tools,
        approval,
        args: ['--name', server, '--call-log', join(root, `${server}-calls.jsonl`)],
        ...(server === 'vault' ? { envVars: ['VAULT_TOKEN'] } : {}),
      }),
    )
    .join('');
}

function profileText(scenario: Scenario): string {
  const roles = teamRoles(scenario);
  return profileToml(
    'matrix',
    'lead',
    Object.fromEntries(
      Object.values(roles).map((r) => [
        r.name,
        {
          ...(r.natives.length > 0 ? { natives: r.natives } : {}),
          ...(r.mesh ? { spawn: ['worker'], control: ['worker'] } : {}),
          grants: Object.fromEntries(
            Object.entries(r.grant).map(([server, tools]) => [server, { tools }]),
          ),
        },
      ]),
    ),
  );
}

export async function scenarioWorld(scenario: Scenario, modelUrl: string): Promise<ScenarioWorld> {
  const canary = `mmo-canary-${randomBytes(12).toString('hex')}`;
  const world = await makeWorld({
    registry: (root) => registryText(root, scenario),
    profile: profileText(scenario),
    credentials: `VAULT_TOKEN=${canary}\n`,
    modelUrl,
  });
  const dirArgs = [...world.dirArgs];
  dirArgs[dirArgs.indexOf('--codex-bin') + 1] = codexBinOf(scenario.version);
  const callLogs = Object.fromEntries(
    Object.keys(REGISTRY).map((s) => [s, join(world.root, `${s}-calls.jsonl`)]),
  );
  return { world, canary, dirArgs, callLogs };
}
