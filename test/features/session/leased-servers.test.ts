/**
 * Leased servers in real sessions with real Codex: a pinned server no role of the process
 * requires is answered from its pin's lease until it is used — one the model never calls never
 * starts, one it calls starts then — while a required one starts with Codex. A leased server
 * whose live surface changed since its pin, or that no longer starts, is caught when first used.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  echoServer,
  onlySession,
  profileToml,
  runInWorld,
  type World,
} from '../../support/world.js';

const PROFILE = profileToml('leases', 'lead', {
  lead: {
    grants: {
      lazy: { required: false, tools: ['note'] },
      idle: { required: false, tools: ['note'] },
      eager: { tools: ['note'] },
    },
  },
});

const callLazy = (request: ModelRequest): ScriptedItem[] =>
  request.toolOutputs.length === 0
    ? [{ type: 'function_call', namespace: 'mcp__lazy', name: 'note', arguments: { text: 'hi' } }]
    : [{ type: 'message', text: 'LEAD-DONE' }];

function registry(root: string): string {
  const server = (id: string, more: string[] = []): string =>
    echoServer(id, { tools: 'note', args: ['--pid-file', join(root, `${id}-pids.txt`), ...more] });
  return [
    server('lazy', [
      '--variant-file',
      join(root, 'lazy-variant.txt'),
      '--fail-file',
      join(root, 'lazy-broken'),
    ]),
    server('idle'),
    server('eager'),
  ].join('');
}

async function pinAll(world: World): Promise<void> {
  for (const id of ['lazy', 'idle', 'eager']) {
    const pinned = await runInWorld(world, ['tool-mcp', 'pin', id]);
    expect(pinned.code, pinned.stderr).toBe(0);
  }
}

async function starts(world: World, id: string): Promise<number> {
  const text = await readFile(join(world.root, `${id}-pids.txt`), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '').length;
}

async function calls(world: World): Promise<Record<string, unknown>[]> {
  const { dir } = await onlySession(world);
  const text = await readFile(join(dir, 'calls.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a leased server', () => {
  const scripted = useScriptedSession({ registry, profile: PROFILE }, callLazy, {
    prepare: async (world) => {
      await pinAll(world);
      // each pin started each server once
      await Promise.all(
        ['lazy', 'idle', 'eager'].map((id) => writeFile(join(world.root, `${id}-pids.txt`), '')),
      );
    },
  });

  it('is offered from its pin and starts only when the model uses it', async () => {
    const lock = await readFile(join(scripted.world.configDir, 'tool-mcp.lock'), 'utf8');
    expect(lock).toContain('[servers.lazy.lease]');

    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    expect(scripted.model.errors).toEqual([]);

    expect(scripted.model.requests[0]?.offeredTools.mcp).toMatchObject({
      lazy: ['note'],
      idle: ['note'],
      eager: ['note'],
    });
    const output = scripted.model.requests[1]?.toolOutputs[0]?.output ?? '';
    expect(output).toContain('hi');

    expect(await starts(scripted.world, 'idle')).toBe(0);
    expect(await starts(scripted.world, 'lazy')).toBe(1);
    expect(await starts(scripted.world, 'eager')).toBe(1);
    const records = await calls(scripted.world);
    expect(records).toContainEqual(
      expect.objectContaining({ server: 'lazy', tool: 'note', outcome: 'ok', role: 'lead' }),
    );

    const { record } = await onlySession(scripted.world);
    expect(record.leased_servers).toEqual(['idle', 'lazy']);
    const shown = await runInWorld(scripted.world, ['session', 'show', String(record.id)]);
    expect(shown.stdout).toMatch(/leased servers:\s+idle, lazy \(answered from the pin/);
  }, 120_000);
});

describe('a leased server that changed since its pin', () => {
  const scripted = useScriptedSession({ registry, profile: PROFILE }, callLazy, {
    prepare: async (world) => {
      await pinAll(world);
      await writeFile(join(world.root, 'lazy-variant.txt'), 'note=now also uploads files');
    },
  });

  it('is checked when it starts: the changed tool is withheld and its call refused', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('warning[tool-drift]');
    expect(result.stderr).toContain("tool 'note' of server 'lazy'");

    const output = scripted.model.requests[1]?.toolOutputs[0]?.output ?? '';
    expect(output).toContain('[tool-drift]');
    expect(output).not.toContain('now also uploads');
    const records = await calls(scripted.world);
    expect(records).toContainEqual(
      expect.objectContaining({ server: 'lazy', tool: 'note', reason: 'tool-drift' }),
    );
    expect(records).not.toContainEqual(
      expect.objectContaining({ server: 'lazy', tool: 'note', outcome: 'ok' }),
    );
  }, 120_000);
});

describe('a leased server that no longer starts', () => {
  const scripted = useScriptedSession({ registry, profile: PROFILE }, callLazy, {
    prepare: async (world) => {
      await pinAll(world);
      await writeFile(join(world.root, 'lazy-broken'), '');
    },
  });

  it("fails its first call with the server's own words; the session goes on", async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'go']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');
    const output = scripted.model.requests[1]?.toolOutputs[0]?.output ?? '';
    expect(output).toContain('failing on purpose');
    expect(result.stderr).toContain("'lazy'");
  }, 120_000);
});
