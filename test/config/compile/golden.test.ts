/**
 * Golden files of rendered Codex homes (example pack and compile fixtures). A rendering change
 * shows up as a diff in test/config/compile/__golden__/; review it, then update with `vitest -u`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { renderAll } from '../../../src/config/compile/render-process.js';
import { readSnapshot, storeSnapshot } from '../../../src/config/snapshot/snapshot-store.js';
import { tmpDir } from '../../support/tmp.js';
import { FIXTURES, REPO, loadFixture } from '../../support/load-fixture.js';

const CASES = [
  {
    name: 'research',
    config: join(REPO, 'examples/config'),
    pack: join(REPO, 'examples/packs/research'),
  },
  { name: 'team', config: join(FIXTURES, 'team/config'), pack: join(FIXTURES, 'team/pack') },
];

describe('golden rendered homes', () => {
  for (const c of CASES) {
    it(`${c.name}: every process renders as recorded, fresh or read back from the store`, async () => {
      const { snapshot, plan } = await loadFixture(c.config, c.pack);
      const data = await tmpDir();
      const { stored } = await storeSnapshot(data, snapshot);
      const readBack = await readSnapshot(data, stored.id);
      const options = { home: '/home/operator' };
      expect(renderAll(readBack.snapshot, plan, options)).toEqual(
        renderAll(snapshot, plan, options),
      );
      for (const home of renderAll(snapshot, plan, options)) {
        for (const [path, text] of home.files) {
          await expect(text).toMatchFileSnapshot(join('__golden__', c.name, home.process, path));
        }
      }
    });
  }
});
