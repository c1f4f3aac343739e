/**
 * The scripted model against real Codex: `codex exec` runs whole turns against it, and the
 * recorded requests show exactly which MCP tools and agent types the model is offered.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { stringify } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';

import {
  offeredToolsOf,
  responseEvents,
  parseRoleList,
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type ScriptedModel,
} from '../../../src/runtime/codex/scripted-model.js';
import { TEST_CODEX_BIN } from '../../support/codex-bin.js';
import { tmpDir } from '../../support/tmp.js';

const CODEX = TEST_CODEX_BIN;
const ECHO = resolve('test/fixtures/servers/echo-server.mjs');

function execCodex(
  home: string,
  prompt: string,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(CODEX, ['exec', '--skip-git-repo-check', prompt], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      fail(new Error(`codex exec timed out; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('offered tools extraction', () => {
  it('splits MCP namespaces, plain and namespaced functions, and agent types', () => {
    const offered = offeredToolsOf({
      tools: [
        { type: 'function', name: 'exec_command' },
        { type: 'web_search' },
        {
          type: 'namespace',
          name: 'multi_agent_v1',
          tools: [
            {
              type: 'function',
              name: 'spawn_agent',
              parameters: {
                properties: {
                  agent_type: {
                    description:
                      'Override.\nAvailable roles:\nreviewer: {\nReviews.\nnot_a_role: {\n}\ndefault: {\nDefault agent.\n}',
                  },
                },
              },
            },
          ],
        },
        { type: 'namespace', name: 'mcp__web', tools: [{ name: 'search' }, { name: 'fetch' }] },
      ],
    });
    expect(offered).toEqual({
      mcp: { web: ['fetch', 'search'] },
      functions: ['exec_command', 'multi_agent_v1.spawn_agent', 'web_search'],
      agentTypes: ['default', 'not_a_role', 'reviewer'],
    });
  });

  it('prefers an agent_type enum when Codex offers one', () => {
    const offered = offeredToolsOf({
      tools: [
        {
          type: 'function',
          name: 'spawn_agent',
          parameters: { properties: { agent_type: { enum: ['b', 'a'] } } },
        },
      ],
    });
    expect(offered.agentTypes).toEqual(['a', 'b']);
    expect(parseRoleList('no roles here')).toEqual([]);
  });
});

describe('scripted answers', () => {
  it('sends a free-form tool call with its raw input, beside functions and messages', () => {
    const events = responseEvents('r', [
      { type: 'custom_tool_call', name: 'exec', input: 'text(1)' },
      { type: 'function_call', name: 'f', arguments: { a: 1 }, namespace: 'ns' },
      { type: 'message', text: 'hi' },
    ]) as { type: string; item?: Record<string, unknown> }[];
    const items = events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    expect(items[0]).toMatchObject({ type: 'custom_tool_call', name: 'exec', input: 'text(1)' });
    expect(items[0]).toHaveProperty('call_id');
    expect(items[1]).toMatchObject({ type: 'function_call', name: 'f', namespace: 'ns' });
    expect(items[1]?.arguments).toBe('{"a":1}');
    expect(items[2]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(events.at(-1)?.type).toBe('response.completed');
  });
});

describe('scripted model with real codex exec', () => {
  it('runs multi-turn tool calls and a sub-agent, recording what each request offers', async () => {
    const home = await tmpDir();
    const echoArgs = [ECHO, '--tools', 'alpha,beta,gamma!'];
    let childId = '';
    model = await startScriptedModel((request: ModelRequest) => {
      if (request.parentThreadId !== undefined) return [{ type: 'message', text: 'reviewed' }];
      const outputs = request.toolOutputs.length;
      if (outputs === 0) {
        return [
          {
            type: 'function_call',
            namespace: 'mcp__echo',
            name: 'alpha',
            arguments: { text: 'hi' },
          },
        ];
      }
      if (outputs === 1) {
        return [
          {
            type: 'function_call',
            namespace: 'multi_agent_v1',
            name: 'spawn_agent',
            arguments: { agent_type: 'reviewer', message: 'smoke: please review' },
          },
        ];
      }
      if (outputs === 2) {
        childId = (JSON.parse(request.toolOutputs[1]?.output ?? '{}') as { agent_id: string })
          .agent_id;
        return [
          {
            type: 'function_call',
            namespace: 'multi_agent_v1',
            name: 'wait_agent',
            arguments: { targets: [childId], timeout_ms: 30_000 },
          },
        ];
      }
      return [{ type: 'message', text: 'all done' }];
    });
    await mkdir(join(home, 'agents'));
    await writeFile(
      join(home, 'config.toml'),
      stringify({
        ...scriptedProviderConfig(model.baseUrl),
        mcp_servers: {
          echo: {
            command: process.execPath,
            args: echoArgs,
            required: true,
            disabled_tools: ['beta'],
            default_tools_approval_mode: 'approve',
          },
          off: { command: process.execPath, args: [ECHO, '--tools', 'hidden'], enabled: false },
        },
        agents: { reviewer: { description: 'Reviews work', config_file: 'agents/reviewer.toml' } },
      }),
    );
    await writeFile(
      join(home, 'agents', 'reviewer.toml'),
      stringify({
        name: 'reviewer',
        description: 'Reviews work',
        developer_instructions: 'You are the reviewer role.',
      }),
    );

    const result = await execCodex(home, 'start the smoke task', 90_000);
    expect(model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('all done');

    const root = model.requests.filter((r) => r.parentThreadId === undefined);
    const child = model.requests.filter((r) => r.parentThreadId !== undefined);
    // measured: the child's end reaches the parent as a `<subagent_notification>` user message
    // as well as through wait_agent; when it lands after the last request has gone out, Codex
    // samples once more with the same tool outputs and the notification added.
    const steps = root.map((r) => r.toolOutputs.length);
    expect(steps.slice(0, 4)).toEqual([0, 1, 2, 3]);
    expect(root.length).toBeLessThanOrEqual(5);
    const notified = root.filter((r) =>
      r.userTexts.some((t) => t.includes('<subagent_notification>')),
    );
    expect(notified.length).toBeGreaterThan(0);
    if (root.length === 5) expect(steps[4]).toBe(3);
    expect(child.length).toBe(1);

    const first = root[0]!;
    expect(first.offeredTools.mcp).toEqual({ echo: ['alpha', 'gamma'] });
    expect(first.offeredTools.agentTypes).toContain('reviewer');
    expect(first.offeredTools.functions).toContain('multi_agent_v1.spawn_agent');
    expect(first.userTexts).toContain('start the smoke task');
    expect(first.hasToolOutput).toBe(false);

    expect(root[1]!.hasToolOutput).toBe(true);
    expect(root[1]!.toolOutputs[0]!.output).toMatch(/alpha: \{.*hi/);
    expect(root.every((r) => r.threadId === first.threadId)).toBe(true);

    const sub = child[0]!;
    expect(sub.parentThreadId).toBe(first.threadId);
    expect(sub.threadId).toBe(childId);
    expect(sub.userTexts).toContain('smoke: please review');
    expect(sub.developerTexts.join('\n')).toContain('You are the reviewer role.');
    // measured: a native role receives its parent's MCP tools
    expect(sub.offeredTools.mcp).toEqual({ echo: ['alpha', 'gamma'] });
    expect(root[3]!.toolOutputs[2]!.output).toContain('reviewed');
  }, 120_000);
});
