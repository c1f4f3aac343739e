/**
 * `run --resume` with real Codex's TUI in a pseudo-terminal: an interactive session quit with
 * `/quit` ends with the hint that continues it; `run --resume ID PROMPT` opens the TUI on the
 * root's conversation (the model sees the first prompt, its answer and the new one) in a new
 * session that records whom it continues, and ends as cleanly. The folder's own
 * `.codex/config.toml` (a server that leaves a mark) loads in neither.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useScriptedSession } from '../../support/scripted-session.js';
import { folderTrustAnswerer, KEYS, startTui, type Tui } from '../../support/tui.js';
import { CLI, echoServer, profileToml, waitFor, withDirArgs } from '../../support/world.js';

const scripted = useScriptedSession(
  {
    registry: echoServer('notes', { tools: 'note' }),
    profile: profileToml('tui-resume', 'lead', { lead: { grants: { notes: {} } } }),
  },
  (request) => {
    const prompts = request.userTexts.filter((t) => !t.startsWith('<environment_context>'));
    return [{ type: 'message', text: `LEAD-SAW ${prompts.join(' + ')}` }];
  },
);

async function sessionIds(): Promise<string[]> {
  return (await readdir(join(scripted.world.stateDir, 'sessions')).catch(() => [])).sort();
}

/** Runs `codex-mmo ARGS` in a terminal until the screen matches `seen`, then quits the TUI. */
async function session(args: readonly string[], seen: RegExp): Promise<{ tui: Tui; id: string }> {
  const before = await sessionIds();
  const requests = scripted.model.requests.length;
  const tui = startTui(process.execPath, [CLI, ...withDirArgs(scripted.world, args)], {
    cwd: scripted.world.workDir,
    env: scripted.world.env,
  });
  const answerTrust = folderTrustAnswerer(tui, () => scripted.model.requests.length > requests);
  await waitFor(() => {
    answerTrust();
    if (tui.child.exitCode !== null) throw new Error('the terminal program ended');
    // the TUI moves its cursor between words: compared without white space
    return seen.test(tui.text().replace(/\s+/g, ''));
  }, 240_000).catch((error: unknown) => {
    throw new Error(`${String(error)}; the screen:\n${tui.text().slice(-3000)}`);
  });
  const id = (await sessionIds()).find((s) => !before.includes(s)) ?? '';
  tui.type('/quit');
  await new Promise((r) => setTimeout(r, 700));
  tui.type(KEYS.enter);
  expect(await tui.exited).toBe(0);
  return { tui, id };
}

describe('run --resume in the TUI', () => {
  it('continues an interactive session with its conversation', async () => {
    // in the working directory: the root's view shows it as it is on the host
    const mark = join(scripted.world.workDir, 'project-server-ran');
    await mkdir(join(scripted.world.workDir, '.codex'), { recursive: true });
    await writeFile(
      join(scripted.world.workDir, '.codex', 'config.toml'),
      `[mcp_servers.project]\ncommand = "sh"\nargs = ["-c", "touch ${mark}; sleep 60"]\n`,
    );
    const first = await session(
      ['run', scripted.world.packDir, '--', 'FIRST-TUI'],
      /LEAD-SAWFIRST-TUI/,
    );
    expect(first.tui.text().replace(/\s+/g, '')).toContain(
      `continueitwith'codex-mmosessionresume${first.id}'`,
    );

    const second = await session(
      ['run', '--resume', first.id, 'SECOND-TUI'],
      /LEAD-SAWFIRST-TUI\+SECOND-TUI/,
    );
    expect(second.id).not.toBe(first.id);
    const record = JSON.parse(
      await readFile(join(scripted.world.stateDir, 'sessions', second.id, 'session.json'), 'utf8'),
    ) as { resumed_from?: string; status: string; mode: string };
    expect(record).toMatchObject({ resumed_from: first.id, status: 'ended', mode: 'run' });
    expect(scripted.model.errors).toEqual([]);
    expect(existsSync(mark)).toBe(false);
    const servers = scripted.model.requests.flatMap((r) => Object.keys(r.offeredTools.mcp));
    expect(servers).toContain('notes');
    expect(servers).not.toContain('project');
  }, 600_000);
});
