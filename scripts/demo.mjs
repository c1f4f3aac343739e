// The codex-mmo demo: runs the built CLI on a private copy of the example operator configuration
// under examples/config, with node_modules/.bin on PATH so the example's bare commands resolve.
// Each step is one CLI invocation; a step marked `mustSucceed` stops the demo when it fails. The
// last steps run a real session against codex-mmo's built-in scripted model (offline, no key).
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
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
const { startScriptedModel, scriptedProviderConfig } = await import(
  join(root, 'dist', 'runtime', 'codex', 'scripted-model.js')
);
const { stringify } = await import('smol-toml');

/** A private workspace: config (copied from examples/config), data and state directories. */
function makeWorkspace() {
  let base;
  try {
    base = mkdtempSync(join(tmpdir(), 'codex-mmo-demo-'));
  } catch (error) {
    // a TMPDIR that is not there or not writable: say so, not a stack trace
    process.stderr.write(
      `demo: cannot make a private directory in ${tmpdir()} (${error.code ?? error.message}); set TMPDIR to a writable directory\n`,
    );
    process.exit(1);
  }
  const configDir = join(base, 'config');
  cpSync(join(root, 'examples', 'config'), configDir, { recursive: true });
  // git does not keep file modes: make the copied credentials file private, as an operator would
  chmodSync(join(configDir, 'credentials.env'), 0o600);
  const workDir = join(base, 'work');
  mkdirSync(workDir);
  return {
    base,
    workDir,
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

/**
 * Runs `codex-mmo ARGS --config-dir …`, streaming its output; resolves to the exit code. Runs
 * asynchronously: the scripted model the session steps talk to lives in this process.
 */
function codexMmo(args, { capture = false } = {}) {
  // shown as a shell would take it: an argument with spaces or quotes is single-quoted
  const quoted = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  const shown = ['codex-mmo', ...args].map(quoted).join(' ');
  if (!capture) process.stdout.write(`\n$ ${shown}\n`);
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [cli, ...args, '--config-dir', workspace.configDir], {
      // stdin is closed: `codex exec` would otherwise wait for more prompt text on a pipe
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
      env,
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.once('error', (error) => {
      process.stderr.write(`demo: could not run ${shown}: ${error.message}\n`);
      resolveRun({ code: 1, stdout });
    });
    child.once('close', (code) => resolveRun({ code: code ?? 1, stdout }));
  });
}

/** Replaces the profile name after `snapshot render` with the id of its newest snapshot. */
async function withSnapshotId(args) {
  const { stdout } = await codexMmo(['snapshot', 'compile', args[2], '--json'], { capture: true });
  const { id } = JSON.parse(stdout);
  return [args[0], args[1], id, ...args.slice(3)];
}

/** Replaces `SESSION` with the id of the newest session. */
async function withSessionId(args) {
  const { stdout } = await codexMmo(['session', 'list', '--json'], { capture: true });
  const id = JSON.parse(stdout).sessions.at(-1)?.id ?? 'none';
  return args.map((a) => (a === 'SESSION' ? id : a));
}

const call = (namespace, name, args) => ({
  type: 'function_call',
  namespace,
  name,
  arguments: args,
});
const say = (text) => ({ type: 'message', text });

/**
 * The script the demo's model follows. The lead (the role offered mmo_mesh) spawns a researcher,
 * waits for it and reports what it said; the researcher (offered the research server) calls its
 * `echo` tool over Streamable HTTP and reports the answer and the tools it was offered.
 */
function demoScript(request) {
  const mcp = request.offeredTools.mcp;
  const outputs = request.toolOutputs;
  const last = outputs.at(-1)?.output ?? '';
  if (mcp.mmo_mesh !== undefined) {
    if (outputs.length === 0) {
      return [
        call('mcp__mmo_mesh', 'spawn_participant', {
          role: 'researcher',
          task: 'Find out what the Model Context Protocol is.',
        }),
      ];
    }
    if (outputs.length === 1) {
      const id = /researcher-\d+/.exec(last)?.[0] ?? 'researcher-1';
      return [call('mcp__mmo_mesh', 'wait_participant', { participant: id })];
    }
    const report = /\[scripted researcher\][^"\\\n]*/.exec(last)?.[0] ?? last.slice(0, 300);
    return [say(`[scripted lead] spawned researcher-1 through mmo_mesh; it reported: ${report}`)];
  }
  if (mcp.research !== undefined) {
    if (outputs.length === 0) {
      return [call('mcp__research', 'echo', { message: 'Model Context Protocol' })];
    }
    const answer = /Echo: [^"\\]*/.exec(last)?.[0] ?? 'no answer';
    const offered = Object.entries(mcp)
      .map(([server, tools]) => `${server}: ${tools.join(', ')}`)
      .join('; ');
    return [
      say(
        `[scripted researcher] the research server answered ${answer}; tools offered to me: ${offered}`,
      ),
    ];
  }
  return [say('[scripted] nothing to do for this role')];
}

/**
 * Points every Codex of later sessions at the scripted model, through the operator's optional
 * codex-base.toml, and shows the file. Codex's built-in ChatGPT apps connector is switched off:
 * it would try to reach the network.
 */
async function useScriptedModel(model) {
  const file = join(workspace.configDir, 'codex-base.toml');
  const text = `# written by the demo: every agent talks to codex-mmo's built-in scripted model\n${stringify(
    {
      ...scriptedProviderConfig(model.baseUrl),
      features: { apps: false },
    },
  )}`;
  writeFileSync(file, text);
  process.stdout.write(
    `\n$ cat ${file}\n${text}\n(codex-base.toml is part of what a snapshot is compiled from, so the session below runs a new snapshot)\n`,
  );
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
  {
    title:
      "Run a session: codex exec as the lead. The model is codex-mmo's built-in SCRIPTED model (offline, no API key): " +
      'its fixed script has the lead spawn a researcher through mmo_mesh, and the researcher call its research tool',
    args: ['exec', 'research', 'What is the Model Context Protocol?', '--cwd', workspace.workDir],
    mustSucceed: true,
    before: useScriptedModel,
  },
  {
    title: 'List the sessions: the one that just ended',
    args: ['session', 'list'],
    mustSucceed: true,
  },
  {
    title: 'Show it: the session root and the researcher participant, each with its private home',
    args: ['session', 'show', 'SESSION'],
    mustSucceed: true,
    resolveSession: true,
  },
];

let failed;
const model = await startScriptedModel(demoScript);
try {
  process.stdout.write(`codex-mmo demo — example configuration copied to ${workspace.configDir}\n`);
  for (const [index, step] of steps.entries()) {
    process.stdout.write(`\n== ${index + 1}/${steps.length} ${step.title}\n`);
    await step.before?.(model);
    let args = step.args;
    if (step.resolveSnapshot) args = await withSnapshotId(args);
    if (step.resolveSession) args = await withSessionId(args);
    const { code } = await codexMmo(args);
    if (code !== 0 && step.mustSucceed) {
      failed = `step ${index + 1} (${step.args.join(' ')}) exited with ${code}`;
      break;
    }
  }
  if (failed === undefined && model.errors.length > 0) {
    failed = `the scripted model failed: ${model.errors.join('; ')}`;
  }
} finally {
  await model.close();
  research.child.kill();
  makeWritable(workspace.base);
  rmSync(workspace.base, { recursive: true, force: true });
}

if (failed !== undefined) {
  process.stderr.write(`\ndemo failed: ${failed}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(
    '\ndemo finished: every role, native roles included, received exactly its granted tools, as measured by real Codex, ' +
      'and a real session spawned a participant through mmo_mesh. ' +
      'All model turns came from the built-in scripted model, offline.\n',
  );
}
