/**
 * Every relative link of the README, CONTRIBUTING, CHANGELOG and docs/*.md leads to a file of the
 * repository, and every `#anchor` to a heading of the file it names (GitHub's heading anchors).
 * The README stays a short entry point; the topic docs hold the rest.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!fenced && heading !== null) anchors.add(anchorOf(heading[1] ?? ''));
  }
  return anchors;
}

describe('links between the docs', () => {
  it('lead to existing files and headings', () => {
    const broken: string[] = [];
    let links = 0;
    for (const file of DOCS) {
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${file} is missing`);
        continue;
      }
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        const [path = '', anchor] = target.split('#');
        const linked = path === '' ? file : join(dirname(file), path);
        if (!existsSync(join(ROOT, linked))) {
          broken.push(`${file}: ${target} (no ${linked})`);
          continue;
        }
        if (anchor !== undefined && !anchorsOf(linked).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${linked})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(links).toBeGreaterThan(40);
  });

  it('keeps the README an entry point of at most 300 lines with the two commands on top', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const top = readme.split('\n').slice(0, 10).join('\n');
    expect(top).toContain('npm ci && npm run demo');
    expect(top).toContain('npm ci && npm test');
  });
});
