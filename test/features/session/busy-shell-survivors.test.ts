/**
 * Nothing a model's shell starts outlives its session, with real Codex: a hostile model that keeps
 * starting long-running commands back to back (each left running by a short `yield_time_ms`) and
 * is stopped by `session stop` while it goes on starting them leaves no command, sandbox helper or `bwrap` running — not
 * right after the stop and not seconds later; a `full-access` shell's `setsid` background process
 * is gone when the session ends normally.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ModelRequest, ScriptedItem } from '../../../src/runtime/codex/scripted-model.js';
import { useScriptedModel } from '../../support/scripted-model-fixture.js';
import {
  HeldRequests,
  echoServer,
  makeWorld,
  profileToml,
  runInWorld,
  startInWorld,
  waitFor,
  type World,
} from '../../support/world.js';

/** Commands the busy model has started when the session is stopped; it goes on starting more. */
const BUSY_COMMANDS = 6;
/** Commands the busy model starts at most before it waits. */
const BUSY_LIMIT = 60;

const held = new HeldRequests();
/** Tags whose detached process was running when the model heard back from its shell. */
const seenDetached = new Set<string>();

function shell(cmd: string, yieldMs?: number, tty = false): ScriptedItem {
  return {
    type: 'function_call',
    name: 'exec_command',
    arguments: {
      cmd,
      login: false,
      tty,
      ...(yieldMs !== undefined ? { yield_time_ms: yieldMs } : {}),
    },
  };
}

/** The tag in a prompt `BUSY <tag>` or `SETSID <tag>`. */
function tagOf(request: ModelRequest, word: string): string | undefined {
  const text = request.userTexts.find((t) => t.includes(`${word} `));
  return text?.slice(text.indexOf(`${word} `) + word.length + 1).split(/\s/)[0];
}

function script(request: ModelRequest): ScriptedItem[] | Promise<ScriptedItem[]> {
  const busy = tagOf(request, 'BUSY');
  if (busy !== undefined) {
    // each command keeps starting short-lived processes and is left running after 100 ms,
    if (request.toolOutputs.length < BUSY_LIMIT) {
      // on a terminal of its own (its own session) every other time
      const tty = request.toolOutputs.length % 2 === 0;
      return [shell(`sh -c 'while :; do sleep 0.2; done' busy-${busy}`, 100, tty)];
    }
    return held.hold();
  }
  const detached = tagOf(request, 'SETSID');
  if (detached !== undefined) {
    if (!request.hasToolOutput) {
      return [
        // the shell lives on a second, so the background job has left its process group (which
        // Codex 0.149 ends with the command) before the shell ends
        shell(
          `setsid sh -c 'exec sleep ${detached}' </dev/null >/dev/null 2>&1 & sleep 1; echo started`,
        ),
      ];
    }
    // the background `sh` may not have become `sleep` yet when the shell's output arrives
    return appears(`sleep\0${detached}`, 5_000).then((running) => {
      if (running) seenDetached.add(detached);
      return [{ type: 'message', text: 'DONE' }];
    });
  }
  return [{ type: 'message', text: 'DONE' }];
}

/** Pids of processes whose command line mentions `needle`. */
async function mentioning(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) found.push(Number(entry));
  }
  return found;
}

/** Whether a process whose command line mentions `needle` shows up within `ms`. */
async function appears(needle: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if ((await mentioning(needle)).length > 0) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function worldWith(permissions: string): Promise<World> {
  return makeWorld({
    registry: echoServer('notes', { tools: 'note' }),
    profile: profileToml('busy', 'lead', {
      lead: { grants: { notes: { required: true } } },
    }).replace(/(\[agents\.lead\]\n)/, `$1permissions = "${permissions}"\n`),
    modelUrl: fixture.model.baseUrl,
  });
}

const fixture = useScriptedModel(script, {
  release: () => {
    held.releaseAll();
  },
});

describe('a busy shell after session stop', () => {
  it('leaves no command, sandbox helper or bwrap running', async () => {
    const tag = '4242.401';
    const world = await worldWith('workspace-write');
    const run = startInWorld(world, ['exec', world.packDir, `BUSY ${tag}`]);
    await waitFor(
      () => fixture.model.requests.some((r) => r.toolOutputs.length >= BUSY_COMMANDS),
      120_000,
    );
    // the commands are running, each starting processes of its own
    await waitFor(async () => (await mentioning(`busy-${tag}`)).length >= BUSY_COMMANDS, 20_000);
    const [id = ''] = await readdir(join(world.stateDir, 'sessions'));
    const stopped = await runInWorld(world, ['session', 'stop', id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    await run.done;
    await waitFor(async () => (await mentioning(`busy-${tag}`)).length === 0, 15_000);
    // nothing starts again later: no orphaned sandbox helper is left to start it
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await mentioning(`busy-${tag}`)).toEqual([]);
  }, 200_000);
});

describe('a full-access shell', () => {
  it("leaves no setsid background process after the session's end", async () => {
    const tag = '4242.402';
    const world = await worldWith('full-access');
    const result = await runInWorld(world, ['exec', world.packDir, `SETSID ${tag}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('DONE');
    // the model's shell did start it, and it was running while the session ran
    expect(seenDetached.has(tag)).toBe(true);
    await waitFor(async () => (await mentioning(`sleep\0${tag}`)).length === 0, 10_000);
  }, 150_000);
});
