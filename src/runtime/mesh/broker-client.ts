/**
 * The `mesh serve` side of the session socket: connects to the session broker, verifies that the
 * listener is the session's supervisor (socket-listener) before it introduces the caller (`hello`,
 * with the calling process's mesh credential), and forwards each mesh tool call as one request
 * line, with the calling thread when Codex named it. In the supervisor itself the same protocol
 * runs on an in-process stream the broker hands out. Implements `MeshBackend`; a lost broker
 * turns every call into a `MeshError('unavailable')`.
 */
import type { Duplex } from 'node:stream';

import {
  connectVerified,
  thisProcess,
  type ExpectedListener,
} from '../../foundation/process/socket-listener.js';
import { ListenerNotVerifiedError } from '../../foundation/errors.js';

import type { ApprovalAnswer, ApprovalDecision } from '../protocol/approval-types.js';

import {
  LineDecoder,
  MeshError,
  encodeLine,
  type BrokerMethod,
  type BrokerPush,
  type BrokerResponse,
  type MeshBackend,
  type MeshCallContext,
  type MeshCaller,
  type MeshErrorCode,
  type ParticipantInfo,
  type ParticipantList,
  type SendResult,
  type SpawnArgs,
  type WaitResult,
} from '../protocol/mesh-protocol.js';

export interface HelloResult {
  readonly session: string;
  readonly role: string;
  readonly spawn: readonly string[];
  readonly control: readonly string[];
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

const ERROR_CODES: ReadonlySet<string> = new Set([
  'refused',
  'not-found',
  'invalid',
  'failed',
  'unavailable',
]);

/** The `thread` parameter of a request, when the call names its thread. */
function thread(context: MeshCallContext | undefined): { thread?: string } {
  return context?.thread !== undefined ? { thread: context.thread } : {};
}

export class BrokerClient implements MeshBackend {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;
  private closeListeners: (() => void)[] = [];
  private pushListener: ((push: BrokerPush) => void) | undefined;

  private constructor(private readonly socket: Duplex) {
    const decoder = new LineDecoder((value) => {
      this.onResponse(value);
    });
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
    });
    socket.on('close', () => {
      this.onClose();
    });
    socket.on('error', () => {
      this.onClose();
    });
  }

  /**
   * Connects, verifies that `supervisor` (default: this process, which serves the broker of a
   * session it supervises) is the listener, and only then introduces the caller with its
   * credential (`token`). ListenerNotVerifiedError, with nothing sent, when it is not;
   * MeshError('unavailable') when no broker listens, MeshError('refused') when the broker does
   * not accept the credential.
   */
  static async connect(
    socketPath: string,
    caller: MeshCaller,
    token: string | undefined,
    supervisor: ExpectedListener = thisProcess(),
  ): Promise<{ client: BrokerClient; hello: HelloResult }> {
    const socket = await connectVerified(socketPath, supervisor).catch((error: unknown) => {
      if (error instanceof ListenerNotVerifiedError) throw error;
      throw new MeshError(
        'unavailable',
        `the session broker at ${socketPath} is not reachable (${error instanceof Error ? error.message : String(error)}); the session may have ended`,
      );
    });
    return BrokerClient.open(socket, caller, token);
  }

  /**
   * Introduces the caller on `stream`, a connection already verified or one the broker in this
   * process handed out (`SessionBroker.connectLocal`).
   */
  static async open(
    stream: Duplex,
    caller: MeshCaller,
    token: string | undefined,
  ): Promise<{ client: BrokerClient; hello: HelloResult }> {
    const client = new BrokerClient(stream);
    try {
      const hello = (await client.call('hello', {
        process: caller.process,
        participant: caller.participant,
        ...(token !== undefined && token !== '' ? { token } : {}),
      })) as HelloResult;
      return { client, hello };
    } catch (error) {
      client.close();
      throw error;
    }
  }

  onClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private onResponse(value: unknown): void {
    if (typeof value !== 'object' || value === null) return;
    if ('push' in value) {
      this.pushListener?.(value as BrokerPush);
      return;
    }
    const response = value as BrokerResponse;
    const pending = this.pending.get(response.id);
    if (pending === undefined) return;
    this.pending.delete(response.id);
    if ('error' in response) {
      const code: MeshErrorCode = ERROR_CODES.has(response.error.code)
        ? response.error.code
        : 'failed';
      pending.reject(new MeshError(code, response.error.message));
    } else {
      pending.resolve(response.result);
    }
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values()) {
      pending.reject(
        new MeshError('unavailable', 'the session broker went away; the session has ended'),
      );
    }
    this.pending.clear();
    for (const listener of this.closeListeners) listener();
    this.closeListeners = [];
  }

  private call(method: BrokerMethod, params: Record<string, unknown>): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(
        new MeshError('unavailable', 'the session broker went away; the session has ended'),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(encodeLine({ id, method, params }));
    });
  }

  spawn(args: SpawnArgs, context?: MeshCallContext): Promise<ParticipantInfo> {
    return this.call('spawn', { ...args, ...thread(context) }) as Promise<ParticipantInfo>;
  }

  send(participant: string, message: string, context?: MeshCallContext): Promise<SendResult> {
    return this.call('send', { participant, message, ...thread(context) }) as Promise<SendResult>;
  }

  wait(participant: string, timeoutSec?: number, context?: MeshCallContext): Promise<WaitResult> {
    const params: Record<string, unknown> = { participant, ...thread(context) };
    if (timeoutSec !== undefined) params.timeout_sec = timeoutSec;
    return this.call('wait', params) as Promise<WaitResult>;
  }

  list(context?: MeshCallContext): Promise<ParticipantList> {
    return this.call('list', thread(context)) as Promise<ParticipantList>;
  }

  stop(participant: string, context?: MeshCallContext): Promise<ParticipantInfo> {
    return this.call('stop', { participant, ...thread(context) }) as Promise<ParticipantInfo>;
  }

  /**
   * Asks the broker for the participants' approval requests (the session root of an interactive
   * run only): each pending, new and answered one reaches `listener`.
   */
  async watchApprovals(listener: (push: BrokerPush) => void): Promise<void> {
    this.pushListener = listener;
    await this.call('watch_approvals', {});
  }

  /** Answers a participant's approval request on behalf of the person at the TUI. */
  async answerApproval(request: string, decision: ApprovalDecision): Promise<ApprovalAnswer> {
    const result = (await this.call('answer_approval', { request, decision })) as {
      answer: ApprovalAnswer;
    };
    return result.answer;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
    this.onClose();
  }
}
