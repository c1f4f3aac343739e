/**
 * The session root of `exec`, driven through `codex app-server` like a participant: initialize,
 * `thread/start` (a failing required MCP server fails it), wait for the root's servers within its
 * lifecycle wait, one turn with the prompt, then shut the app-server down. Approval requests go to
 * the given policy (the session's queue). The outcome keeps Codex's exit semantics: 0 when the
 * turn completed, 1 when the thread could not start, the turn failed or was interrupted.
 */
import type { ContainerMasks } from '../../foundation/process/container-masks.js';
import type { HostViewLaunch } from '../../foundation/process/host-view.js';
import {
  AppServerClient,
  AppServerRequestError,
  type ApprovalPolicy,
} from '../../runtime/codex/app-server-client.js';
import type { ServerNotification, TurnInfo } from '../../runtime/codex/app-server-protocol.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { describeError } from '../../foundation/errors.js';

export interface ExecRootOptions {
  readonly codexBin: string;
  readonly home: string;
  /** Directories its container hides, its home kept. */
  readonly masks?: ContainerMasks;
  readonly view?: HostViewLaunch;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly prompt: string;
  /** A thread kept in `home` to continue (`thread/resume`) instead of starting one. */
  readonly resumeThread?: string;
  /** `-c key=value` overrides for the app-server. */
  readonly configArgs: readonly string[];
  readonly model?: string;
  /** MCP servers of the root whose startup is awaited before the turn. */
  readonly servers: readonly string[];
  readonly lifecycleWaitSec: number;
  readonly secrets: readonly string[];
  readonly approvals: ApprovalPolicy;
  readonly onNotification?: (n: ServerNotification) => void;
  readonly onStderr?: (chunk: string) => void;
  /** Called with the app-server's pid (its container) as soon as it is spawned. */
  readonly onSpawn?: (pid: number) => void;
}

export interface ExecOutcome {
  readonly exitCode: number;
  /** Why it failed (masked). */
  readonly error?: string;
  readonly finalMessage?: string;
  /** True when the turn was interrupted on request. */
  readonly interrupted: boolean;
}

export interface ExecRoot {
  readonly pid: number | undefined;
  readonly done: Promise<ExecOutcome>;
  /** Interrupts the turn and ends the app-server. */
  stop(): void;
}

/** `thread/start` waits for required MCP servers, which have their own startup timeouts. */
const THREAD_START_TIMEOUT_MS = 30 * 60_000;
const REQUEST_TIMEOUT_MS = 60_000;

export async function startExecRoot(options: ExecRootOptions): Promise<ExecRoot> {
  const mask = (text: string): string => maskSecrets(text, options.secrets);
  const client = await AppServerClient.start({
    codexBin: options.codexBin,
    codexHome: options.home,
    env: options.env,
    cwd: options.cwd,
    args: options.configArgs.flatMap((c) => ['-c', c]),
    ...(options.masks !== undefined ? { masks: options.masks } : {}),
    ...(options.view !== undefined ? { view: options.view } : {}),
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    clientInfo: { name: 'codex-mmo', title: 'codex-mmo exec', version: '1' },
    approvals: options.approvals,
    ...(options.onStderr !== undefined ? { onStderr: options.onStderr } : {}),
    ...(options.onSpawn !== undefined ? { onSpawn: options.onSpawn } : {}),
  });
  let stopRequested = false;
  let threadId: string | undefined;
  let turnId: string | undefined;
  let wakeStop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    wakeStop = resolve;
  });

  const run = async (): Promise<ExecOutcome> => {
    const messages: string[] = [];
    const completed = new Promise<TurnInfo>((resolve) => {
      client.onNotification((n) => {
        options.onNotification?.(n);
        if (threadId === undefined || n.params.threadId !== threadId) return;
        if (n.method === 'item/completed') {
          const item = n.params.item as { type?: unknown; text?: unknown } | undefined;
          if (item?.type === 'agentMessage' && typeof item.text === 'string') {
            messages.push(item.text);
          }
        } else if (n.method === 'turn/completed') {
          const turn = n.params.turn as TurnInfo | undefined;
          if (turn !== undefined && (turnId === undefined || turn.id === turnId)) resolve(turn);
        }
      });
    });
    const exited = client.exited.then((exit) => ({ kind: 'exit' as const, exit }));
    const interrupted = (): ExecOutcome => ({
      exitCode: 1,
      error: 'interrupted',
      interrupted: true,
    });
    try {
      const params = {
        cwd: options.cwd,
        ...(options.model !== undefined ? { model: options.model } : {}),
      };
      const thread = await Promise.race([
        options.resumeThread !== undefined
          ? client.resumeThread(
              { ...params, threadId: options.resumeThread },
              THREAD_START_TIMEOUT_MS,
            )
          : client.startThread(params, THREAD_START_TIMEOUT_MS),
        stopped.then(() => undefined),
      ]);
      if (thread === undefined) return interrupted();
      threadId = thread.thread.id;
      await Promise.race([
        client.waitForMcpStartup(
          threadId,
          options.servers,
          Math.max(0, options.lifecycleWaitSec * 1000),
        ),
        stopped,
      ]);
      if (stopRequested) return interrupted();
      const started = await client.startTurn(threadId, options.prompt);
      turnId = started.turn.id;
      const end = await Promise.race([
        completed.then((turn) => ({ kind: 'turn' as const, turn })),
        exited,
        stopped.then(() => ({ kind: 'stop' as const })),
      ]);
      if (end.kind === 'stop') {
        await client.request('turn/interrupt', { threadId, turnId }, 5_000).catch(() => undefined);
        return interrupted();
      }
      if (end.kind === 'exit') {
        return {
          exitCode: 1,
          error: mask(
            `codex app-server exited during the turn (${end.exit.signal ?? `code ${String(end.exit.code)}`})`,
          ),
          interrupted: false,
        };
      }
      const finalMessage = messages.at(-1);
      const withMessage = finalMessage !== undefined ? { finalMessage: mask(finalMessage) } : {};
      const turn = end.turn;
      if (turn.status === 'completed') return { exitCode: 0, interrupted: false, ...withMessage };
      if (turn.status === 'interrupted') return { ...interrupted(), ...withMessage };
      return {
        exitCode: 1,
        error: mask(`the turn failed: ${turn.error?.message ?? turn.status}`),
        interrupted: false,
        ...withMessage,
      };
    } catch (error) {
      if (stopRequested) return interrupted();
      const text = error instanceof AppServerRequestError ? error.rpcMessage : describeError(error);
      return { exitCode: 1, error: mask(text), interrupted: false };
    }
  };

  const done = (async (): Promise<ExecOutcome> => {
    try {
      return await run();
    } finally {
      await client.close(1_000).catch(() => undefined);
    }
  })();

  return {
    pid: client.pid,
    done,
    stop(): void {
      stopRequested = true;
      wakeStop?.();
    },
  };
}
