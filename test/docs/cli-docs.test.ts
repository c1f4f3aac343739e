/**
 * The words cannot drift from the commands: every command's `--help` runs on the built CLI
 * (dist/cli/main.js), every `codex-mmo GROUP COMMAND` a help text, the README or a topic doc under
 * docs/ shows is a real command, every option they pass one is in that command's help, and every
 * script example in a help text parses as a scripted-model script.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

import { aliasOf } from '../../src/cli/aliases.js';
import { COMMANDS, TOP_LEVEL } from '../../src/cli/router.js';
import { parseModelScript } from '../../src/features/onboard/model-script.js';

const run = promisify(execFile);
const MAIN = resolve('dist/cli/main.js');
/** The README and every topic doc, joined in order. */
const DOC_FILES = [
  'README.md',
  ...readdirSync(resolve('docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const DOCS = DOC_FILES.map((f) => readFileSync(resolve(f), 'utf8')).join('\n');

const commands: string[][] = [
  ...Object.entries(COMMANDS).flatMap(([group, subs]) => Object.keys(subs).map((c) => [group, c])),
  ...Object.keys(TOP_LEVEL).map((c) => [c]),
];

/** The command words a `codex-mmo …` text names, or undefined when it names none. */
function commandOf(words: readonly string[]): string[] | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (Object.hasOwn(TOP_LEVEL, first)) return [first];
  const group = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (group === undefined || second === undefined) return undefined;
  // an alias (`tool-mcp ls`) names the command it runs
  const alias = aliasOf(first, second);
  if (alias !== undefined) return [first, alias.command];
  return Object.hasOwn(group, second) ? [first, second] : undefined;
}

async function helpOf(command: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [MAIN, ...command, '--help'], {
    env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent-home' },
  });
  return stdout;
}

describe('every --help of the built CLI', () => {
  it('prints usage for each command, names only real commands and parses its script examples', async () => {
    const helps = new Map<string, string>();
    for (let i = 0; i < commands.length; i += 4) {
      const batch = commands.slice(i, i + 4);
      const texts = await Promise.all(batch.map(helpOf));
      batch.forEach((c, j) => helps.set(c.join(' '), texts[j] ?? ''));
    }
    for (const [command, text] of helps) {
      expect(text, command).toMatch(/^Usage: codex-mmo /);
      for (const match of text.matchAll(/`codex-mmo ([a-z-]+)(?: ([a-z-]+))?/g)) {
        const words = [match[1] ?? '', match[2] ?? ''].filter((w) => w !== '');
        expect(
          commandOf(words),
          `${command} --help names \`codex-mmo ${words.join(' ')}\``,
        ).toBeDefined();
      }
      // a JSON example of a step with "function" must be a valid script step
      for (const match of text.matchAll(/\{"function": [^\n]*?\}\}/g)) {
        const parsed = parseModelScript(`{"steps": [${match[0]}]}`, 'help');
        expect(parsed.diagnostics, `${command}: ${match[0]}`).toEqual([]);
      }
    }
    expect(helps.get('scripted-model')).toContain('"namespace": "multi_agent_v1"');
  }, 180_000);
});

describe('the README and the topic docs', () => {
  // commands: `$ codex-mmo …` in console blocks, `codex-mmo …` lines of bash blocks
  let fence: string | undefined;
  const lines = DOCS.split('\n')
    .filter((l) => {
      const open = /^\s*```(\w*)/.exec(l);
      if (open !== null) {
        fence = fence === undefined ? (open[1] ?? '') : undefined;
        return false;
      }
      const t = l.trim();
      return (
        (fence !== undefined && t.startsWith('$ codex-mmo ')) ||
        ((fence === 'bash' || fence === 'sh') && t.startsWith('codex-mmo '))
      );
    })
    .map((l) => l.trim())
    .map((l) => l.replace(/^\$ /, '').replace(/\s+#.*$/, ''));

  it('shows only real commands, with options their help lists', async () => {
    expect(lines.length).toBeGreaterThan(40);
    const helps = new Map<string, string>();
    for (const line of lines) {
      const words = line.split(/\s+/).slice(1);
      if (words[0] === '--version' || words[0] === '--help') continue;
      const command = commandOf(words);
      expect(command, `docs: ${line}`).toBeDefined();
      if (command === undefined) continue;
      const key = command.join(' ');
      if (!helps.has(key)) helps.set(key, await helpOf(command));
      const help = helps.get(key) ?? '';
      const own = words.slice(0, words.indexOf('--') === -1 ? undefined : words.indexOf('--'));
      for (const option of own.filter((w) => /^--[a-z]/.test(w))) {
        const name = option.replace(/=.*$/, '');
        expect(help, `docs: ${line} — ${name}`).toContain(name);
      }
    }
  }, 180_000);
});
