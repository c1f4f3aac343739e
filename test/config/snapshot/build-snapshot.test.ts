/**
 * Snapshot assembly: which servers and pins are kept, what profile data is stored, and which input
 * changes change the identity.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import type { ProfilePack } from '../../../src/config/profile/types.js';
import type { ServerDefinition } from '../../../src/config/registry/types.js';
import { KeyPositions } from '../../../src/foundation/toml/key-positions.js';
import {
  buildSnapshot,
  normaliseProfile,
  snapshotId,
  snapshotText,
} from '../../../src/config/snapshot/build-snapshot.js';
import { SNAPSHOT_FORMAT } from '../../../src/config/snapshot/types.js';
import { FIXTURES, loadFixture } from '../../support/load-fixture.js';

const team = (): ReturnType<typeof loadFixture> =>
  loadFixture(join(FIXTURES, 'team/config'), join(FIXTURES, 'team/pack'));

describe('buildSnapshot', () => {
  it('keeps the granted servers only, with their definitions as written', async () => {
    const { snapshot, definitions } = await team();
    expect(definitions.has('unused')).toBe(true);
    expect(Object.keys(snapshot.servers)).toEqual(['alpha', 'notes', 'web']);
    const alpha = snapshot.servers.alpha;
    expect(alpha?.transport === 'stdio' && alpha.command).toBe('~/bin/alpha-mcp');
    expect(alpha?.transport === 'stdio' && alpha.cwd).toBe('~/work');
    expect(snapshot.format).toBe(SNAPSHOT_FORMAT);
    expect(snapshot.schema_version).toBe(8);
  });

  it('stores the instruction text, not the file', async () => {
    const { snapshot } = await team();
    expect(snapshot.profile.agents.reviewer?.instructions).toContain('You review changes.');
    expect(snapshot.profile.agents.reviewer?.instructions_file).toBe('reviewer.md');
  });

  it('stores pure profile data: no pack directory, file or key positions', async () => {
    const { snapshot } = await team();
    const pack = {
      ...snapshot.profile,
      dir: '/somewhere/pack',
      file: '/somewhere/pack/profile.toml',
      positions: new KeyPositions(),
    } satisfies ProfilePack;
    const normal = normaliseProfile(pack);
    expect(Object.keys(normal).sort()).toEqual([
      'agents',
      'description',
      'name',
      'root',
      'schema_version',
    ]);
    expect(snapshotText(buildSnapshot(pack, new Map(), {}, {}))).not.toContain('/somewhere');
  });

  it('keeps pins of granted servers only, ordered by tool name', async () => {
    const { snapshot, definitions } = await team();
    const built = buildSnapshot(
      snapshot.profile,
      definitions,
      {},
      {
        alpha: [
          { name: 'write', digest: 'sha256:2' },
          { name: 'read', digest: 'sha256:1' },
        ],
        unused: [{ name: 'x', digest: 'sha256:3' }],
      },
    );
    expect(built.pins).toEqual({
      alpha: [
        { name: 'read', digest: 'sha256:1' },
        { name: 'write', digest: 'sha256:2' },
      ],
    });
  });

  it('has a stable identity that any change to an input changes', async () => {
    const { snapshot, definitions } = await team();
    const id = snapshotId(snapshot);
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(snapshotId(buildSnapshot(snapshot.profile, definitions, snapshot.base, {}))).toBe(id);

    const changed = new Map(definitions);
    const alpha = definitions.get('alpha') as ServerDefinition;
    changed.set('alpha', { ...alpha, tool_timeout_sec: 91 });
    expect(snapshotId(buildSnapshot(snapshot.profile, changed, snapshot.base, {}))).not.toBe(id);

    const unusedChanged = new Map(definitions);
    unusedChanged.set('unused', {
      ...(definitions.get('unused') as ServerDefinition),
      enabled_tools: ['y'],
    });
    expect(snapshotId(buildSnapshot(snapshot.profile, unusedChanged, snapshot.base, {}))).toBe(id);

    expect(
      snapshotId(buildSnapshot(snapshot.profile, definitions, { model: 'other' }, {})),
    ).not.toBe(id);
  });

  it('holds variable names only, never a value', async () => {
    const { snapshot } = await team();
    const text = snapshotText(snapshot);
    expect(text).toContain('"ALPHA_TOKEN"');
    expect(text).toContain('"WEB_API_KEY"');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(snapshot)));
  });
});
