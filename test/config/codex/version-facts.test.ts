/**
 * Re-measures every row of the Codex version table against the installed binary this run uses
 * (one run per supported version): accepted config keys (`app-server --strict-config`), when each
 * approval mode asks for each kind of tool annotation (app-server elicitations), the shell
 * environment with no `shell_environment_policy`, what a native sub-agent receives, the names
 * servers are offered under, the Responses request shape, `codex mcp-server` and the rollback
 * method. A mismatch names the version, so a new Codex release is one table row away.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { stringify } from 'smol-toml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { AppServerClient } from '../../../src/runtime/codex/app-server-client.js';
import type { ServerRequest } from '../../../src/runtime/codex/app-server-protocol.js';
import { runCodex, strictConfigCheck } from '../../../src/runtime/codex/codex-cli.js';
import {
  CODEX_VERSIONS,
  acceptsMcpServerKey,
  acceptsTopLevelKey,
  approvalModeAsks,
  classifyCodexVersion,
  offeredNameCollisions,
  offeredNamespace,
  offeredServerName,
  serverOfNamespace,
  versionGatedMcpServerKeys,
  versionGatedTopLevelKeys,
  type ApprovalHints,
  type CodexVersionFacts,
} from '../../../src/config/codex/codex-versions.js';
import { detectCodex } from '../../../src/runtime/codex/find-codex.js';
import {
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type ScriptHandler,
  type ScriptedItem,
} from '../../../src/runtime/codex/scripted-model.js';
import { APPROVAL_MODES, type ApprovalMode } from '../../../src/config/registry/types.js';
import type { TomlTable } from '../../../src/foundation/toml/parse-toml.js';
import { TEST_CODEX_BIN, TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

const V = `Codex ${TEST_CODEX_SERIES}`;
const ANNOTATED = resolve('test/fixtures/servers/annotated-server.mjs');
const ECHO = resolve('test/fixtures/servers/echo-server.mjs');
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent-home' };

/** Tool name → annotations (null: the tool has none), one of each kind approval modes read. */
const ANNOTATIONS: Readonly<Record<string, ApprovalHints | null>> = {
  plain: null,
  no_hints: {},
  read_only: { readOnlyHint: true },
  read_only_destructive: { readOnlyHint: true, destructiveHint: true },
  not_read_only: { readOnlyHint: false },
  closed_world: { destructiveHint: false, openWorldHint: false },
  destructive: { destructiveHint: true },
};

let facts: CodexVersionFacts;
let version: string;

beforeAll(async () => {
  const detected = await detectCodex(TEST_CODEX_BIN, BASE_ENV);
  if (detected.kind !== 'found') throw new Error(`${V}: cannot run ${TEST_CODEX_BIN}`);
  version = detected.version;
  const classified = classifyCodexVersion(version);
  facts = classified.facts;
  if (!classified.supported) throw new Error(`${V}: ${version} is not in the version table`);
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((f) => f()));
});

async function home(config: TomlTable, files: Record<string, TomlTable> = {}): Promise<string> {
  const dir = await tmpDir('codex-mmo-facts-');
  await writeFile(join(dir, 'config.toml'), stringify(config));
  for (const [path, table] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), stringify(table));
  }
  return dir;
}

async function appServer(
  codexHome: string,
  approvals?: (r: ServerRequest) => 'accept' | 'decline',
  env: Record<string, string> = {},
): Promise<AppServerClient> {
  const client = await AppServerClient.start({
    codexBin: TEST_CODEX_BIN,
    codexHome,
    env: { ...BASE_ENV, HOME: codexHome, ...env },
    cwd: codexHome,
    requestTimeoutMs: 60_000,
    ...(approvals !== undefined ? { approvals } : {}),
  });
  cleanups.push(() => client.close());
  return client;
}

async function scripted(handler: ScriptHandler): Promise<{
  requests: ModelRequest[];
  config: TomlTable;
}> {
  const model = await startScriptedModel(handler);
  cleanups.push(() => model.close());
  return { requests: model.requests, config: scriptedProviderConfig(model.baseUrl) };
}

describe(`${V}: the installed binary is a row of the table`, () => {
  it(`${V}: codex --version names a supported series`, () => {
    expect(version.startsWith(`${TEST_CODEX_SERIES}.`), version).toBe(true);
    expect(facts.series).toBe(TEST_CODEX_SERIES);
    expect(CODEX_VERSIONS.map((r) => r.series)).toContain(TEST_CODEX_SERIES);
  });
});

describe(`${V}: accepted configuration keys`, () => {
  const server = { command: process.execPath, args: [ECHO] };
  const values: Readonly<Record<string, unknown>> = {
    startup_readiness: 'connection',
    tool_input_schema_max_bytes: 4096,
    mcp_optional_startup_grace_ms: 1000,
  };

  it(`${V}: strict config accepts a plain server`, async () => {
    const result = await strictConfigCheck(
      TEST_CODEX_BIN,
      await home({ mcp_servers: { a: server } }),
      BASE_ENV,
    );
    expect(result.ok, result.output).toBe(true);
  });

  it(`${V}: strict config accepts each version-gated [mcp_servers.X] key exactly as the table says`, async () => {
    const gated = versionGatedMcpServerKeys();
    expect(gated.length).toBeGreaterThan(0);
    for (const key of gated) {
      const value = values[key];
      if (value === undefined) throw new Error(`no sample value for ${key}`);
      const result = await strictConfigCheck(
        TEST_CODEX_BIN,
        await home({ mcp_servers: { a: { ...server, [key]: value } } }),
        BASE_ENV,
      );
      expect({ key, accepted: result.ok }, result.output).toEqual({
        key,
        accepted: acceptsMcpServerKey(facts, key),
      });
    }
  });

  it(`${V}: strict config accepts each version-gated top-level key exactly as the table says`, async () => {
    for (const key of versionGatedTopLevelKeys()) {
      const value = values[key];
      if (value === undefined) throw new Error(`no sample value for ${key}`);
      const result = await strictConfigCheck(
        TEST_CODEX_BIN,
        await home({ [key]: value }),
        BASE_ENV,
      );
      expect({ key, accepted: result.ok }, result.output).toEqual({
        key,
        accepted: acceptsTopLevelKey(facts, key),
      });
    }
  });

  it(`${V}: strict config rejects a key no version knows`, async () => {
    const result = await strictConfigCheck(
      TEST_CODEX_BIN,
      await home({ mcp_servers: { a: { ...server, no_such_key: true } } }),
      BASE_ENV,
    );
    expect(result.ok).toBe(false);
    expect(acceptsMcpServerKey(facts, 'no_such_key')).toBe(false);
  });
});

describe(`${V}: approval modes per tool annotation`, () => {
  it(`${V}: each mode asks (an elicitation) exactly for the tools the table says`, async () => {
    const calls: { server: string; tool: string }[] = [];
    for (const mode of APPROVAL_MODES) {
      for (const tool of Object.keys(ANNOTATIONS)) calls.push({ server: `mode_${mode}`, tool });
    }
    let current: { server: string; tool: string } | undefined;
    const model = await scripted((request) => {
      const next = calls[request.toolOutputs.length];
      current = next;
      if (next === undefined) return [{ type: 'message', text: 'done' }];
      return [
        {
          type: 'function_call',
          namespace: `mcp__${next.server}`,
          name: next.tool,
          arguments: { text: 'x' },
        },
      ];
    });
    const servers: TomlTable = {};
    for (const mode of APPROVAL_MODES) {
      servers[`mode_${mode}`] = {
        command: process.execPath,
        args: [ANNOTATED, '--annotations', JSON.stringify(ANNOTATIONS)],
        default_tools_approval_mode: mode,
        required: true,
      };
    }
    const codexHome = await home({ ...model.config, mcp_servers: servers });
    const asked = new Set<string>();
    const client = await appServer(codexHome, (request) => {
      if (request.method === 'mcpServer/elicitation/request' && current !== undefined) {
        asked.add(`${current.server}/${current.tool}`);
      }
      return 'accept';
    });
    const { thread } = await client.startThread({ ephemeral: true, sandbox: 'read-only' });
    await client.waitForMcpStartup(thread.id, Object.keys(servers), 30_000);
    const result = await client.runTurn(thread.id, 'call every tool', { timeoutMs: 120_000 });
    expect(result.finalMessage).toBe('done');
    // every call ran (asked calls were accepted), so the elicitations are the whole answer
    const ran = result.items.filter((i) => i.type === 'mcpToolCall');
    expect(ran.map((i) => i.status)).toEqual(calls.map(() => 'completed'));

    const measured: Record<string, Record<string, boolean>> = {};
    const expected: Record<string, Record<string, boolean>> = {};
    for (const mode of APPROVAL_MODES as readonly ApprovalMode[]) {
      measured[mode] = {};
      expected[mode] = {};
      for (const [tool, annotations] of Object.entries(ANNOTATIONS)) {
        measured[mode][tool] = asked.has(`mode_${mode}/${tool}`);
        expected[mode][tool] = approvalModeAsks(facts, mode, annotations ?? undefined);
      }
    }
    expect(measured, `${V}: asks per mode and tool`).toEqual(expected);
  }, 180_000);
});

describe(`${V}: shell environment without shell_environment_policy`, () => {
  it(`${V}: the model's shell sees every variable of the Codex process, credentials included`, async () => {
    const canary = 'facts-canary-9d41c2';
    const model = await scripted((request) =>
      request.hasToolOutput
        ? [{ type: 'message', text: 'done' }]
        : [
            {
              type: 'function_call',
              name: 'exec_command',
              arguments: { cmd: 'env', login: false },
            },
          ],
    );
    const codexHome = await home(model.config);
    const client = await appServer(codexHome, () => 'accept', {
      FACTS_SERVICE_TOKEN: canary,
      FACTS_API_KEY: canary,
      FACTS_PLAIN: canary,
    });
    const { thread } = await client.startThread({ ephemeral: true, sandbox: 'danger-full-access' });
    await client.runTurn(thread.id, 'print the environment', { timeoutMs: 60_000 });
    const output = model.requests.find((r) => r.hasToolOutput)?.toolOutputs[0]?.output ?? '';
    expect(output).toContain('PATH=');
    const seen = ['FACTS_SERVICE_TOKEN', 'FACTS_API_KEY', 'FACTS_PLAIN'].filter((name) =>
      output.includes(`${name}=${canary}`),
    );
    expect(seen.length === 3, `${V}: ${seen.join(', ')}`).toBe(facts.shellInheritsAllByDefault);
  }, 90_000);
});

describe(`${V}: native sub-agents`, () => {
  it(`${V}: a child gets its parent's MCP servers and filters, not its role file's`, async () => {
    const spawn: ScriptedItem = {
      type: 'function_call',
      namespace: 'multi_agent_v1',
      name: 'spawn_agent',
      arguments: { agent_type: 'child', message: 'act as child' },
    };
    const model = await scripted((request) => {
      const isChild = request.developerTexts.join('\n').includes('ROLE-CHILD');
      if (isChild) return [{ type: 'message', text: 'child done' }];
      const outputs = request.toolOutputs;
      if (outputs.length === 0) return [spawn];
      if (outputs.length === 1) {
        const id = (JSON.parse(outputs[0]?.output ?? '{}') as { agent_id?: string }).agent_id;
        return [
          {
            type: 'function_call',
            namespace: 'multi_agent_v1',
            name: 'wait_agent',
            arguments: { targets: [id ?? ''], timeout_ms: 30_000 },
          },
        ];
      }
      return [{ type: 'message', text: 'root done' }];
    });
    const echo = (tools: string): TomlTable => ({
      command: process.execPath,
      args: [ECHO, '--tools', tools],
    });
    const codexHome = await home(
      {
        ...model.config,
        developer_instructions: 'ROLE-ROOT',
        mcp_servers: { alpha: { ...echo('one,two'), disabled_tools: ['two'] } },
        agents: { child: { description: 'A child', config_file: 'agents/child.toml' } },
      },
      {
        'agents/child.toml': {
          name: 'child',
          description: 'A child',
          developer_instructions: 'ROLE-CHILD',
          mcp_servers: {
            alpha: { ...echo('one,two'), enabled: true, disabled_tools: ['one'] },
            beta: echo('b1'),
          },
        },
      },
    );
    const client = await appServer(codexHome, () => 'accept');
    const { thread } = await client.startThread({ ephemeral: true, sandbox: 'read-only' });
    await client.waitForMcpStartup(thread.id, ['alpha'], 30_000);
    await client.runTurn(thread.id, 'spawn the child', { timeoutMs: 90_000 });
    const root = model.requests.find((r) => r.developerTexts.join('\n').includes('ROLE-ROOT'));
    const child = model.requests.find((r) => r.developerTexts.join('\n').includes('ROLE-CHILD'));
    expect(root?.offeredTools.mcp).toEqual({ alpha: ['one'] });
    expect(child, `${V}: the child never asked the model`).toBeDefined();
    const isolated =
      JSON.stringify(child?.offeredTools.mcp) === JSON.stringify({ alpha: ['two'], beta: ['b1'] });
    const inherited =
      JSON.stringify(child?.offeredTools.mcp) === JSON.stringify({ alpha: ['one'] });
    expect({ isolated, inherited }, JSON.stringify(child?.offeredTools.mcp)).toEqual({
      isolated: facts.nativeRolesIsolated,
      inherited: !facts.nativeRolesIsolated,
    });
  }, 150_000);
});

describe(`${V}: offered server names and the Responses request shape`, () => {
  it(`${V}: servers are offered under the names the table says, in the request shape it says`, async () => {
    const model = await scripted((request) =>
      request.hasToolOutput
        ? [{ type: 'message', text: 'done' }]
        : [{ type: 'function_call', namespace: 'mcp__c_d', name: 'one', arguments: {} }],
    );
    // `a-b` and `a_b` map to one name, `c-d` keeps `c_d`, `x.y` needs the newer rule; `a`,
    // `a__`, `q---` and `Mixed-Case` keep names of their own (case kept, nothing appended)
    const ids = ['a-b', 'a_b', 'c-d', 'x.y', 'a', 'a__', 'q---', 'Mixed-Case'];
    const servers: TomlTable = {};
    for (const id of ids)
      servers[id] = { command: process.execPath, args: [ECHO, '--tools', 'one'] };
    const codexHome = await home({
      ...model.config,
      developer_instructions: 'ROLE-ROOT',
      mcp_servers: servers,
    });
    const client = await appServer(codexHome, () => 'accept');
    const { thread } = await client.startThread({ ephemeral: true, sandbox: 'read-only' });
    await client.waitForMcpStartup(thread.id, ids, 30_000).catch(() => undefined);
    await client.runTurn(thread.id, 'call a tool', { timeoutMs: 60_000 });
    const first = model.requests[0];
    const followUp = model.requests.find((r) => r.hasToolOutput);
    expect(first).toBeDefined();

    const collisions = offeredNameCollisions(facts, ids);
    expect(collisions).toEqual([['a-b', 'a_b']]);
    const expected: string[] = [];
    for (const id of ids) {
      const name = offeredServerName(facts, id);
      if (name === undefined) continue;
      // colliding names get a hashed suffix of 12 hex digits each
      expected.push(collisions.flat().includes(id) ? `${name}_<hash>` : name);
    }
    const offered = Object.keys(first?.offeredTools.mcp ?? {}).map((n) =>
      n.replace(/_[0-9a-f]{12}$/, '_<hash>'),
    );
    expect(offered.sort(), `${V}: offered names`).toEqual(expected.sort());
    // each unhashed namespace reads back to exactly its own server
    for (const namespace of Object.keys(first?.offeredTools.mcp ?? {})) {
      if (/_[0-9a-f]{12}$/.test(namespace)) continue;
      const id = serverOfNamespace(facts, `mcp__${namespace}`, ids);
      expect(id, namespace).toBeDefined();
      expect(offeredNamespace(facts, id ?? ''), namespace).toBe(`mcp__${namespace}`);
    }

    const body = first?.body ?? {};
    const placement =
      typeof body.instructions === 'string' && body.instructions !== ''
        ? 'instructions-field'
        : 'first-developer-message';
    expect(placement).toBe(facts.responses.instructions);
    if (placement === 'first-developer-message') {
      // the base prompt comes before the role's instructions
      expect(first?.developerTexts.length).toBeGreaterThan(1);
      expect(first?.developerTexts[0]).not.toContain('ROLE-ROOT');
    }
    expect(first?.instructions.length).toBeGreaterThan(100);
    expect(first?.instructions).not.toContain('ROLE-ROOT');

    const input = Array.isArray(followUp?.body.input) ? followUp.body.input : [];
    const output = (input as { type?: string; output?: unknown }[]).find(
      (i) => i.type === 'function_call_output',
    )?.output;
    expect(Array.isArray(output) ? 'input-text-array' : typeof output).toBe(
      facts.responses.toolOutput,
    );
    expect(followUp?.toolOutputs[0]?.output).toContain('one');

    expect(first?.offeredTools.functions.includes('update_plan')).toBe(
      facts.responses.updatePlanByDefault,
    );
  }, 90_000);
});

describe(`${V}: the sandbox on the host`, () => {
  it(`${V}: a sandboxed command finds exactly the table's mount points in an empty working directory, and they go with it`, async () => {
    const work = await tmpDir('codex-mmo-facts-mounts-');
    const codexHome = await home({
      default_permissions: 'p',
      permissions: { p: { extends: ':workspace' } },
    });
    const run = await runCodex(TEST_CODEX_BIN, codexHome, ['sandbox', '--', 'ls', '-A', work], {
      env: BASE_ENV,
      cwd: work,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(
      run.stdout
        .split('\n')
        .filter((n) => n !== '')
        .sort(),
    ).toEqual([...facts.sandboxMountPoints].sort());
    expect(await readdir(work)).toEqual([]);
  });
});

describe(`${V}: commands and app-server methods`, () => {
  it(`${V}: codex mcp-server exists exactly when the table says`, async () => {
    const run = await runCodex(TEST_CODEX_BIN, await home({}), ['--help'], { env: BASE_ENV });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(/^\s+mcp-server\s/m.test(run.stdout), run.stdout).toBe(facts.hasMcpServerCommand);
  });

  it(`${V}: codex --help offers the arguments that keep the TUI's app-server its own`, async () => {
    const run = await runCodex(TEST_CODEX_BIN, await home({}), ['--help'], { env: BASE_ENV });
    expect(run.exitCode, run.stderr).toBe(0);
    // a TUI that leaves a daemon needs a way to do without it
    expect(facts.tuiOwnAppServerArgs.length > 0).toBe(facts.tuiLeavesAppServerDaemon);
    for (const arg of facts.tuiOwnAppServerArgs) {
      expect(run.stdout.split(/\s+/), run.stdout).toContain(arg);
    }
  });

  it(`${V}: the app-server protocol names the table's rollback method`, async () => {
    const out = await tmpDir('codex-mmo-facts-schema-');
    const run = await runCodex(
      TEST_CODEX_BIN,
      await home({}),
      ['app-server', 'generate-json-schema', '--out', out],
      { env: BASE_ENV, timeoutMs: 60_000 },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    let text = '';
    for (const entry of await readdir(out, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.json')) {
        text += await readFile(join(entry.parentPath, entry.name), 'utf8');
      }
    }
    const methods = ['thread/rollback', 'thread/revert'].filter((m) => text.includes(`"${m}"`));
    expect(methods).toEqual([facts.rollbackMethod]);
  });
});
