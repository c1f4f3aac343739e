// Session boundary benchmark, against real Codex (0.171 and 0.149) and a scripted local model (no
// network, no API key). Every Codex process of a session runs with a permission profile that
// denies its shell reads of the operator's directories; Codex applies those entries before every
// start and every sandboxed command. Three rule sets for the same home, on a state dir holding
// realistic content (ended sessions: records, logs, and of each process home what an ended
// session keeps, its configuration and the rollouts of a home Codex really used):
//   none     no filesystem entries (the cost floor)
//   globs    the former rule set: the state dir denied by ~30 globs (everything but each home's
//            `tmp/`), glob_scan_max_depth = 10, which Codex expands by walking the state dir
//            (0.171 refuses to start once more than 8192 files match)
//   literal  what codex-mmo renders now: each operator directory, the state dir included, denied
//            by one literal entry, which Codex's sandbox masks without a scan
// Turns: `start` (the model answers at once: the cost of a start) and `command` (one sandboxed
// shell command first). Arms alternate in rotating order after a warm-up round; medians and the
// median of per-round differences to `none` are reported, with the load average.
// BENCH_ROUNDS (default 5), BENCH_SESSIONS (old sessions, default 20), BENCH_VERSIONS ("171,149").
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { stringify } from 'smol-toml';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (path) => join(root, 'dist', path);
const { startScriptedModel, scriptedProviderConfig } = await import(
  dist('runtime/codex/scripted-model.js')
);
const { denyEntries } = await import(dist('config/compile/session-boundary.js'));
const { denyWhole } = await import(dist('runtime/session/read-deny.js'));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20);
const BINS = {
  171: join(root, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
  149: join(root, 'node_modules', 'codex-0149', 'bin', 'codex.js'),
};
const VERSIONS = (process.env.BENCH_VERSIONS ?? '171,149').split(',');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (value) => `${value.toFixed(0)} ms`;
const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

let script = () => [{ type: 'message', text: 'ok' }];
const model = await startScriptedModel((request) => script(request));
const answer = { start: () => [{ type: 'message', text: 'ok' }] };
answer.command = (request) =>
  request.toolOutputs.length === 0
    ? [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'true', login: false } }]
    : [{ type: 'message', text: 'ok' }];

function run(bin, home, cwd, turn) {
  script = answer[turn];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, CODEX_HOME: home };
    const args = ['exec', '--skip-git-repo-check', '--', 'go'];
    const child = spawn(bin, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`codex exec exited ${code}:\n${stderr}`));
      else resolve(elapsed);
    });
  });
}

/** The former rule set: every name in the state dir but `sessions/*\/homes/*\/tmp`, by globs. */
function formerGlobs(state) {
  const allNamesExcept = (name) => [
    ...[...name].map((c, i) => `${name.slice(0, i)}[!${c}]*`),
    `${name}?*`,
  ];
  const globs = [
    ...allNamesExcept('sessions').map((n) => `${state}/${n}`),
    ...allNamesExcept('homes').map((n) => `${state}/sessions/*/${n}`),
    ...allNamesExcept('tmp').map((n) => `${state}/sessions/*/homes/*/${n}`),
  ];
  const entries = {};
  for (const glob of globs) {
    entries[glob] = 'deny';
    entries[`${glob}/**`] = 'deny';
  }
  return entries;
}

function countFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .length;
}

// not under the system temporary directory: Codex makes its PATH helpers only outside it
const base = process.env.BENCH_DIR ?? join(homedir(), '.cache');
mkdirSync(base, { recursive: true });
const work = mkdtempSync(join(base, 'codex-mmo-bench-boundary-'));
try {
  const dirs = {
    config: join(work, 'config'),
    data: join(work, 'data'),
    codexHome: join(work, 'base-codex'),
    state: join(work, 'state'),
  };
  const cwd = join(work, 'cwd');
  for (const dir of [...Object.values(dirs), cwd]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dirs.config, 'credentials.env'), 'TOKEN=bench\n');
  writeFileSync(join(dirs.codexHome, 'auth.json'), '{}\n');
  const provider = scriptedProviderConfig(model.baseUrl);
  const operatorDirs = [dirs.config, dirs.data, dirs.codexHome];
  const layouts = {
    none: {},
    globs: { ...denyEntries(await denyWhole(operatorDirs)), ...formerGlobs(dirs.state) },
    literal: denyEntries(await denyWhole([...operatorDirs, dirs.state])),
  };
  layouts.globs.glob_scan_max_depth = 10;
  const homeFor = (version, layout) =>
    join(dirs.state, 'sessions', `live-${version}-${layout}`, 'homes', 'lead');
  // a home Codex really used (one command turn); an ended session keeps of each process home its
  // rendered configuration and Codex's rollouts, so every old session gets those
  const template = join(work, 'template');
  mkdirSync(template);
  writeFileSync(join(template, 'config.toml'), stringify(provider));
  await run(BINS[VERSIONS[0]], template, cwd, 'command');
  for (let i = 0; i < SESSIONS; i++) {
    const session = join(dirs.state, 'sessions', `old-${i}`);
    for (const process of ['lead', 'worker-1', 'worker-2']) {
      const home = join(session, 'homes', process);
      mkdirSync(home, { recursive: true });
      cpSync(join(template, 'config.toml'), join(home, 'config.toml'));
      cpSync(join(template, 'sessions'), join(home, 'sessions'), { recursive: true });
    }
    mkdirSync(join(session, 'logs'));
    writeFileSync(join(session, 'session.json'), '{}\n');
    writeFileSync(join(session, 'events.jsonl'), '{}\n'.repeat(50));
    for (const name of ['supervisor', 'lead', 'worker-1', 'worker-2']) {
      writeFileSync(join(session, 'logs', `${name}.log`), 'log\n'.repeat(200));
    }
  }
  for (const version of VERSIONS) {
    for (const [layout, filesystem] of Object.entries(layouts)) {
      const home = homeFor(version, layout);
      mkdirSync(home, { recursive: true });
      const profile = { extends: ':workspace', network: { enabled: false } };
      if (Object.keys(filesystem).length > 0) profile.filesystem = filesystem;
      writeFileSync(
        join(home, 'config.toml'),
        stringify({ ...provider, default_permissions: 'bench', permissions: { bench: profile } }),
      );
    }
  }
  console.log(
    `session boundary cost (codex exec, scripted model, workspace-write profile; ${ROUNDS} rounds after a warm-up round; Node ${process.version})`,
  );
  console.log(
    `  state dir: ${SESSIONS} ended sessions (3 process homes each), ${countFiles(dirs.state)} files; ${cpus().length} CPUs`,
  );
  for (const version of VERSIONS) {
    const arms = [];
    for (const layout of Object.keys(layouts)) {
      for (const turn of Object.keys(answer)) arms.push({ layout, turn });
    }
    const times = new Map(arms.map((a) => [`${a.layout}/${a.turn}`, []]));
    const diffs = new Map(arms.map((a) => [`${a.layout}/${a.turn}`, []]));
    const loadBefore = load();
    for (let i = 0; i <= ROUNDS; i++) {
      const round = new Map();
      for (let k = 0; k < arms.length; k++) {
        const { layout, turn } = arms[(i + k) % arms.length];
        round.set(
          `${layout}/${turn}`,
          await run(BINS[version], homeFor(version, layout), cwd, turn),
        );
      }
      if (i === 0) continue;
      for (const [key, value] of round) {
        times.get(key).push(value);
        diffs.get(key).push(value - round.get(`none/${key.split('/')[1]}`));
      }
    }
    console.log(`Codex 0.${version}: load average before ${loadBefore}, after ${load()}`);
    for (const [key, values] of times) {
      const extra = key.startsWith('none/')
        ? ''
        : `, over none: median ${ms(median(diffs.get(key)))}`;
      console.log(`  ${key.padEnd(16)} median ${ms(median(values)).padStart(8)}${extra}`);
    }
    for (const layout of Object.keys(layouts)) {
      const command = times.get(`${layout}/command`);
      const start = times.get(`${layout}/start`);
      const perCommand = command.map((v, j) => v - start[j]);
      console.log(`  ${layout.padEnd(8)} one sandboxed command: median ${ms(median(perCommand))}`);
    }
  }
} finally {
  await model.close();
  rmSync(work, { recursive: true, force: true });
}
