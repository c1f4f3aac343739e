/**
 * The docs' walkthroughs run as written: every block marked `<!-- runnable -->` in the README's
 * five-minute path and the operator guide (an offline exec, from zero to your own server) runs,
 * command by command and in order, in one bash shell on the built CLI, in a throwaway copy of the
 * checkout (examples copied, dist and node_modules linked), with real Codex, real MCP servers and
 * the scripted model; then the scripted model's `--help` examples run in a real `exec`. Every
 * command must exit 0 and print the summary lines the doc shows. The only change to a command is
 * the example ports (3001, 4100), moved to free ports so parallel runs do not collide. Every
 * command line a `--help` shows as an example, without placeholders, runs the same way.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { COMMANDS, TOP_LEVEL } from '../../src/cli/router.js';
import { tmpDir } from '../support/tmp.js';
import { CLI, REPO, requireBuild } from '../support/world.js';
import { shellBlocks, type DocCommand, type ShellBlock } from './doc-blocks.js';

/** Walkthrough sections in which every shell block must be marked runnable or not, with a reason. */
const WALKTHROUGHS: Record<string, readonly string[] | 'all'> = {
  'README.md': 'all',
  'docs/operator-guide.md': ['An offline exec', 'From zero to your own server'],
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function blocksOf(file: string): Promise<ShellBlock[]> {
  return shellBlocks(file, await readFile(join(REPO, file), 'utf8'));
}

/** Runs `script` with bash in `cwd`; resolves when bash exits (its process group is then ended). */
function runBash(script: string, cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [script], { cwd, env, detached: true, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', (code) => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // the group is already gone
      }
      done(code ?? 1);
    });
  });
}

function helpOf(command: readonly string[]): Promise<string> {
  return new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...command, '--help'], { stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', fail);
    child.on('close', () => {
      done(out);
    });
  });
}

/**
 * The command lines every `--help` shows as an example (`  codex-mmo …` with no placeholder such
 * as ID, [OPTIONS] or …), to be run as they stand.
 */
async function helpCommandExamples(): Promise<string[]> {
  const commands = [
    ...Object.entries(COMMANDS).flatMap(([group, subs]) =>
      Object.keys(subs).map((c) => [group, c]),
    ),
    ...Object.keys(TOP_LEVEL).map((c) => [c]),
  ];
  const out: string[] = [];
  for (let i = 0; i < commands.length; i += 4) {
    for (const help of await Promise.all(commands.slice(i, i + 4).map(helpOf))) {
      for (const m of help.matchAll(/^ {2}(codex-mmo [^\n]*)$/gm)) {
        const line = m[1] ?? '';
        if (!/[[…]|\b[A-Z]{2,}\b/.test(line)) out.push(line);
      }
    }
  }
  return out;
}

/** The scripted model's help examples as one script: the lead spawns a native role, then runs the steps. */
async function helpScript(): Promise<string> {
  const help = await helpOf(['scripted-model']);
  const steps = /^ {2}(\{"steps": \[[\s\S]*?^ {2}\]\})$/m.exec(help)?.[1];
  const spawnStep = /\{"function": "spawn_agent"[\s\S]*?\}\}/.exec(help)?.[0];
  expect(steps, 'scripted-model --help shows a script').toBeDefined();
  expect(spawnStep, 'scripted-model --help shows a spawn_agent step').toBeDefined();
  const parsed = JSON.parse(steps ?? '') as { steps: unknown[] };
  return JSON.stringify({
    scripts: [
      { when_offered: 'mmo_mesh', steps: [JSON.parse(spawnStep ?? ''), ...parsed.steps] },
      { steps: [{ reply: 'the native role is done' }] },
    ],
  });
}

describe('the docs walkthroughs, run as written', () => {
  it('mark every shell block of a walkthrough, runnable or not with a reason', async () => {
    for (const [file, sections] of Object.entries(WALKTHROUGHS)) {
      const blocks = (await blocksOf(file)).filter(
        (b) => sections === 'all' || sections.includes(b.section),
      );
      expect(blocks.filter((b) => b.marker?.runnable === true).length, file).toBeGreaterThan(0);
      for (const b of blocks) {
        expect(b.marker, `${file}:${String(b.line)} has no runnable marker`).toBeDefined();
        if (b.marker?.runnable === false)
          expect(b.marker.reason, `${file}:${String(b.line)}`).not.toBe('');
      }
    }
  });

  it('run every marked command and the scripted model help examples against the built CLI', async () => {
    requireBuild();
    const world = await tmpDir('codex-mmo-walk-');
    const ports = { '3001': await freePort(), '4100': await freePort(), help: await freePort() };
    await cp(join(REPO, 'examples'), join(world, 'examples'), { recursive: true });
    await symlink(join(REPO, 'dist'), join(world, 'dist'));
    await symlink(join(REPO, 'node_modules'), join(world, 'node_modules'));
    await mkdir(join(world, 'home'));
    await mkdir(join(world, '.walk'));
    const fragment = join(world, 'examples/config/tool-mcp.d/20-research.toml');
    await writeFile(
      fragment,
      (await readFile(fragment, 'utf8')).replace(':3001/', `:${String(ports['3001'])}/`),
    );

    const commands: { where: string; command: DocCommand }[] = [];
    for (const file of Object.keys(WALKTHROUGHS)) {
      for (const b of (await blocksOf(file)).filter((x) => x.marker?.runnable === true)) {
        for (const c of b.commands)
          commands.push({ where: `${file}:${String(b.line)}`, command: c });
      }
    }
    const help = `export CODEX_MMO_CONFIG_DIR="$TRY/config" CODEX_MMO_DATA_DIR="$TRY/data" CODEX_MMO_STATE_DIR="$TRY/state"
cat > "$TRY/help-script.json" <<'JSON'
${await helpScript()}
JSON
codex-mmo scripted-model --port ${String(ports.help)} --script "$TRY/help-script.json" >"$CODEX_MMO_CONFIG_DIR/codex-base.toml" &
until grep -q ${String(ports.help)} "$CODEX_MMO_CONFIG_DIR/codex-base.toml" 2>/dev/null; do sleep 0.2; done
codex-mmo exec research "Follow the scripted model's help examples"`;
    commands.push({
      where: 'scripted-model --help',
      command: { text: help, shown: ['done; the last tool said:'] },
    });
    // the default config directory, which an example may write into, exists for an operator
    commands.push({ where: 'setup', command: { text: 'mkdir -p ~/.config/codex-mmo', shown: [] } });
    const examples = await helpCommandExamples();
    expect(examples).toContain(
      'codex-mmo tool-mcp schema > ~/.config/codex-mmo/tool-mcp.schema.json',
    );
    for (const example of examples) {
      commands.push({ where: 'a --help example', command: { text: example, shown: [] } });
    }
    const schemaCheck = `node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).$schema || process.exit(1)' ~/.config/codex-mmo/tool-mcp.schema.json`;
    commands.push({
      where: 'the schema example wrote a JSON Schema',
      command: { text: schemaCheck, shown: [] },
    });

    const script = ['shopt -s expand_aliases', 'set +e'];
    commands.forEach(({ command }, i) => {
      const text = command.text
        .replace(/\b3001\b/g, String(ports['3001']))
        .replace(/\b4100\b/g, String(ports['4100']));
      script.push(`{\n${text}\n} >"${world}/.walk/out.${String(i)}" 2>&1 </dev/null`);
      script.push(`echo $? >"${world}/.walk/rc.${String(i)}"`);
    });
    script.push('kill $(jobs -p) 2>/dev/null; wait');
    await writeFile(join(world, '.walk/script.sh'), script.join('\n') + '\n');
    const env = {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: join(world, 'home'),
      LANG: 'C.UTF-8',
    };
    await runBash(join(world, '.walk/script.sh'), world, env);

    for (const [i, { where, command }] of commands.entries()) {
      const rc = await readFile(join(world, `.walk/rc.${String(i)}`), 'utf8').catch(
        () => 'missing',
      );
      const out = await readFile(join(world, `.walk/out.${String(i)}`), 'utf8').catch(() => '');
      const label = `${where}: ${command.text.split('\n')[0] ?? ''}\n${out.slice(-3000)}`;
      expect(rc.trim(), label).toBe('0');
      const summaries = command.shown.filter((l) =>
        /^(smoke: |doctor: |registry (is|has) |done; the last tool said:)/.test(l),
      );
      for (const line of summaries) expect(out, label).toContain(line);
    }
    expect(commands.length).toBeGreaterThan(15);
  }, 900_000);
});
