/**
 * docs/codex-versions.md shows the version table the code reads: its generated block equals
 * `codexVersionsMarkdown()`, and it names every supported series.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { codexVersionsMarkdown } from '../../../src/config/codex/codex-versions-doc.js';
import { CODEX_VERSIONS } from '../../../src/config/codex/codex-versions.js';

const DOC = readFileSync('docs/codex-versions.md', 'utf8');

describe('docs/codex-versions.md', () => {
  it('holds the generated table, unchanged', () => {
    expect(DOC).toContain(codexVersionsMarkdown());
  });

  it('has one column per supported version, newest (the default) first', () => {
    const header = codexVersionsMarkdown().split('\n')[2];
    expect(header).toBe(
      `| behaviour | ${CODEX_VERSIONS.map((r) => `${r.series}.x`).join(' | ')} |`,
    );
    expect(codexVersionsMarkdown()).toContain('| default | yes | no |');
  });
});
