// The codex-mmo demo: runs the built CLI on a private copy of the example operator configuration
// under examples/config, with node_modules/.bin on PATH so the example's bare commands resolve.
// Each step is one CLI invocation; a step marked `mustSucceed` stops the demo when it fails.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

/**
 * Starts the example Streamable HTTP server (the everything server, bound to 127.0.0.1 on a free
 * port) and points the copied `research` fragment at the port it got.
 */
async function startResearchServer(configDir) {
  const child = spawn(
    process.execPath,
    [join(root, 'examples', 'servers', 'everything-http.mjs')],
    {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const port = await new Promise((resolvePort, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error('the example HTTP server did not start')),
      20_000,
    );
    child.stderr.on('data', (chunk) => {
      seen += chunk.toString();
      const match = /LISTENING (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
    child.once('exit', () => reject(new Error('the example HTTP server exited')));
  });
  const fragment = join(configDir, 'tool-mcp.d', '20-research.toml');
  writeFileSync(
    fragment,
    readFileSync(fragment, 'utf8').replace('127.0.0.1:3001', `127.0.0.1:${port}`),
  );
  return { child, port };
}

const workspace = makeWorkspace();
const research = await startResearchServer(workspace.configDir);

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

/** Replaces the profile name after `snapshot render` with the id of its newest snapshot. */
function withSnapshotId(args) {
  const listed = spawnSync(
    process.execPath,
    [cli, 'snapshot', 'compile', args[2], '--json', '--config-dir', workspace.configDir],
    { env, encoding: 'utf8' },
  );
  const { id } = JSON.parse(listed.stdout);
  return [args[0], args[1], id, ...args.slice(3)];
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
  {
    title: 'Probe a server live: start it as Codex would and compare its tools with the registry',
    args: ['tool-mcp', 'probe', 'everything'],
    mustSucceed: true,
  },
  {
    title: "Pin the servers' reviewed tool surfaces in tool-mcp.lock (later drift is an error)",
    args: ['tool-mcp', 'pin', 'everything'],
    mustSucceed: true,
  },
  { title: 'Pin the HTTP server too', args: ['tool-mcp', 'pin', 'research'], mustSucceed: true },
  {
    title: 'Compile the profile into an immutable, content-addressed snapshot',
    args: ['snapshot', 'compile', 'research'],
    mustSucceed: true,
  },
  {
    title: 'Render the session root process: the Codex config.toml and role files it runs with',
    args: ['snapshot', 'render', 'research', '--process', 'lead'],
    mustSucceed: true,
    resolveSnapshot: true,
  },
  {
    title:
      'Smoke the profile: real Codex, offline scripted model, granted vs received tools per role',
    args: ['profile', 'smoke', 'research'],
    mustSucceed: true,
  },
];

let failed;
try {
  process.stdout.write(`codex-mmo demo — example configuration copied to ${workspace.configDir}\n`);
  for (const [index, step] of steps.entries()) {
    process.stdout.write(`\n== ${index + 1}/${steps.length} ${step.title}\n`);
    const code = codexMmo(step.resolveSnapshot ? await withSnapshotId(step.args) : step.args);
    if (code !== 0 && step.mustSucceed) {
      failed = `step ${index + 1} (${step.args.join(' ')}) exited with ${code}`;
      break;
    }
  }
} finally {
  research.child.kill();
  makeWritable(workspace.base);
  rmSync(workspace.base, { recursive: true, force: true });
}

if (failed !== undefined) {
  process.stderr.write(`\ndemo failed: ${failed}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(
    '\ndemo finished: every session root and participant role received exactly its granted tools, as measured by real Codex (native roles: see the warning above).\n',
  );
}
