// The codex-mmo demo: runs the built CLI on a private copy of the example operator configuration
// under examples/config, with node_modules/.bin on PATH so the example's bare commands resolve.
// Each step is one CLI invocation; a step marked `mustSucceed` stops the demo when it fails.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli', 'main.js');

/** A private workspace: config (copied from examples/config), data and state directories. */
function makeWorkspace() {
  const base = mkdtempSync(join(tmpdir(), 'codex-mmo-demo-'));
  const configDir = join(base, 'config');
  cpSync(join(root, 'examples', 'config'), configDir, { recursive: true });
  // git does not keep file modes: make the copied credentials file private, as an operator would
  chmodSync(join(configDir, 'credentials.env'), 0o600);
  return {
    base,
    configDir,
    dataDir: join(base, 'data'),
    stateDir: join(base, 'state'),
  };
}

/** Installed packs are read-only: make the workspace's directories writable so it can be removed. */
function makeWritable(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) makeWritable(join(dir, entry.name));
  }
  chmodSync(dir, 0o755);
}

const workspace = makeWorkspace();

const env = {
  ...process.env,
  PATH: [join(root, 'node_modules', '.bin'), process.env.PATH ?? ''].join(delimiter),
  CODEX_MMO_CONFIG_DIR: workspace.configDir,
  CODEX_MMO_DATA_DIR: workspace.dataDir,
  CODEX_MMO_STATE_DIR: workspace.stateDir,
};

/** Runs `codex-mmo ARGS --config-dir …`, streaming its output; returns the exit code. */
function codexMmo(args) {
  const shown = ['codex-mmo', ...args].join(' ');
  process.stdout.write(`\n$ ${shown}\n`);
  const result = spawnSync(process.execPath, [cli, ...args, '--config-dir', workspace.configDir], {
    stdio: 'inherit',
    env,
  });
  if (result.error) {
    process.stderr.write(`demo: could not run ${shown}: ${result.error.message}\n`);
    return 1;
  }
  return result.status ?? 1;
}

/**
 * The demo, in order. `mustSucceed` steps stop the demo on a non-zero exit; the others are shown
 * for information.
 */
const steps = [
  {
    title: 'Validate the operator registry and check readiness (nothing is launched)',
    args: ['tool-mcp', 'validate'],
    mustSucceed: true,
  },
  { title: 'List the registered Tool MCP servers', args: ['tool-mcp', 'list'], mustSucceed: true },
  {
    title: 'Show one server: definition, provenance and readiness',
    args: ['tool-mcp', 'show', 'everything'],
    mustSucceed: true,
  },
  {
    title: 'Install the example profile pack (read-only copy in the data directory)',
    args: ['profile', 'install', join(root, 'examples', 'packs', 'research')],
    mustSucceed: true,
  },
  {
    title: 'Resolve the profile: processes, grants, lifecycle waits, mmo_mesh timeouts, env names',
    args: ['profile', 'show', 'research', '--resolved'],
    mustSucceed: true,
  },
  {
    title: 'Diagnose the profile: readiness, Codex, pins, and what native roles do not isolate',
    args: ['profile', 'doctor', 'research'],
    mustSucceed: true,
  },
];

let failed;
try {
  process.stdout.write(`codex-mmo demo — example configuration copied to ${workspace.configDir}\n`);
  for (const [index, step] of steps.entries()) {
    process.stdout.write(`\n== ${index + 1}/${steps.length} ${step.title}\n`);
    const code = codexMmo(step.args);
    if (code !== 0 && step.mustSucceed) {
      failed = `step ${index + 1} (${step.args.join(' ')}) exited with ${code}`;
      break;
    }
  }
} finally {
  makeWritable(workspace.base);
  rmSync(workspace.base, { recursive: true, force: true });
}

if (failed !== undefined) {
  process.stderr.write(`\ndemo failed: ${failed}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write('\ndemo finished: the example configuration is valid and ready.\n');
}
