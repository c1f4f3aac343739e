#!/usr/bin/env node
/**
 * The CLI's cold start against a bare `node` start: `node -e 0`, `codex-mmo --help`,
 * `codex-mmo --version` (Codex not on PATH, so no Codex is run) and `codex-mmo session list`
 * in an empty state directory, run alternately, median and p90 wall time of N runs each, and
 * the JavaScript each loads (the bundle's static import closure of its command).
 * Usage: `npm run bench:cold-start [-- --runs N]`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
const CLI = resolve('dist/cli/main.js');
const state = mkdtempSync(join(tmpdir(), 'bench-cold-'));
const env = {
  PATH: '/usr/bin:/bin',
  HOME: state,
  XDG_CONFIG_HOME: join(state, 'config'),
  XDG_DATA_HOME: join(state, 'data'),
  XDG_STATE_HOME: join(state, 'state'),
};
const CASES = {
  'node -e 0': [process.execPath, '-e', '0'],
  'codex-mmo --help': [process.execPath, CLI, '--help'],
  'codex-mmo --version': [process.execPath, CLI, '--version'],
  'codex-mmo session list': [process.execPath, CLI, 'session', 'list'],
};

/** Bytes of JavaScript a bundle file loads statically, itself included. */
function closure(file, seen = new Set()) {
  if (seen.has(file)) return 0;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let bytes = text.length;
  for (const m of text.matchAll(/^import[^;]*?from\s*"(\.[^"]+)"|^import\s*"(\.[^"]+)"/gm)) {
    bytes += closure(resolve(dirname(file), m[1] ?? m[2]), seen);
  }
  return bytes;
}

/** The bundle file of a lazily loaded chunk, by its name's prefix. */
function chunk(prefix) {
  const name = readdirSync('dist/chunks').find((n) => n.startsWith(`${prefix}-`));
  return name === undefined ? [] : [resolve('dist/chunks', name)];
}

/** Bytes of JavaScript the files load together, each counted once. */
function loaded(files) {
  const seen = new Set();
  return files.reduce((bytes, file) => bytes + closure(file, seen), 0);
}

const times = Object.fromEntries(Object.keys(CASES).map((k) => [k, []]));
try {
  for (let i = 0; i < runs; i++) {
    for (const [name, [command, ...args]] of Object.entries(CASES)) {
      const started = performance.now();
      const result = spawnSync(command, args, { env, stdio: 'ignore' });
      times[name].push(performance.now() - started);
      if (result.status !== 0) throw new Error(`${name} exited ${String(result.status)}`);
    }
  }
} finally {
  rmSync(state, { recursive: true, force: true });
}
const at = (xs, q) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const base = at(times['node -e 0'], 0.5);
const cli = [CLI, ...chunk('router')];
const loads = {
  'node -e 0': 0,
  'codex-mmo --help': loaded(cli),
  'codex-mmo --version': loaded([...cli, ...chunk('version')]),
  'codex-mmo session list': loaded([...cli, ...chunk('session-list')]),
};
process.stdout.write(`cold start, ${String(runs)} runs each, alternating (wall time)\n`);
for (const [name, xs] of Object.entries(times)) {
  const median = at(xs, 0.5);
  const over = name === 'node -e 0' ? '' : `  +${(median - base).toFixed(1)} ms over node`;
  const kb = loads[name] > 0 ? `  loads ${String(Math.round(loads[name] / 1024))} KB of JS` : '';
  process.stdout.write(
    `  ${name.padEnd(24)} median ${median.toFixed(1)} ms  p90 ${at(xs, 0.9).toFixed(1)} ms${over}${kb}\n`,
  );
}
