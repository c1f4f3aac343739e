/**
 * What a session's supervising process keeps for people: the approval queue with its socket (and
 * the socket's key, written 0600 into the session directory, which the sandboxes cannot read),
 * and the event log. It hands each driven Codex process an answer policy that sends approvals to
 * the queue, turns app-server notifications and queue activity into events, records callers the
 * socket refused and every session listener flooded with connections that did not authenticate,
 * and on `close` denies whatever is still pending before the socket and its key go away (fail
 * closed).
 */
import { userInfo } from 'node:os';

import type { ApprovalPolicy } from '../codex/app-server-client.js';
import type { ServerNotification } from '../codex/app-server-protocol.js';
import type {
  ConnectionLimitOptions,
  ListenerFlood,
} from '../../foundation/process/connection-limits.js';
import { EventLog } from '../events/event-log.js';
import { floodCause, floodEvent } from '../events/listener-floods.js';
import { eventsOfNotification } from '../events/notification-events.js';
import type { EventInput } from '../events/session-event.js';
import type { ApprovalGate } from './approval-gate.js';
import { queuePolicy } from './approval-policy.js';
import { ApprovalQueue } from './approval-queue.js';
import { approvalKeyPath, removeApprovalKey, writeApprovalKey } from './approval-auth.js';
import { ApprovalSocket, type Refusal } from './approval-socket.js';

/** Refused callers recorded per session; later ones are counted, not recorded one by one. */
const MAX_REFUSALS_RECORDED = 50;

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export interface SupervisionOptions {
  readonly session: string;
  readonly dir: string;
  readonly socketPath: string;
  readonly timeoutSec: number;
  /** Values masked in every event and every request shown to people. */
  readonly secrets: readonly string[];
  /** The OS user running the session (default: this process's). */
  readonly owner?: string;
  /** The approval socket's limits on connections not yet authenticated (its floods are recorded). */
  readonly limits?: Omit<ConnectionLimitOptions, 'onFlood'>;
}

function refusalText(r: Refusal): string {
  const tried = [
    r.method !== undefined ? `method ${r.method}` : undefined,
    r.decision !== undefined ? `decision ${r.decision}` : undefined,
    r.peer_pid !== undefined ? `pid ${String(r.peer_pid)}` : undefined,
    r.peer_uid !== undefined ? `uid ${String(r.peer_uid)}` : undefined,
    r.peer_sandboxed === true ? 'in a sandbox' : undefined,
  ].filter((t) => t !== undefined);
  return `${r.code}${tried.length > 0 ? ` (${tried.join(', ')})` : ''}`;
}

export class SessionSupervision {
  private constructor(
    readonly queue: ApprovalQueue,
    readonly events: EventLog,
    private readonly socket: ApprovalSocket,
    private readonly secrets: readonly string[],
    private readonly dir: string,
    private readonly floods: ListenerFlood[],
  ) {}

  static async start(options: SupervisionOptions): Promise<SessionSupervision> {
    const queue = new ApprovalQueue({
      session: options.session,
      dir: options.dir,
      timeoutSec: options.timeoutSec,
    });
    const events = new EventLog(options.dir, options.session, options.secrets);
    queue.listen({
      requested: (r) => {
        events.append({
          process: r.process,
          role: r.role,
          type: 'approval.requested',
          approval: r.id,
          kind: r.kind,
          ...(r.thread !== undefined ? { thread: r.thread } : {}),
          ...(r.server !== undefined ? { server: r.server } : {}),
          ...(r.tool !== undefined ? { tool: r.tool } : {}),
          text: r.arguments,
        });
      },
      answered: (r, a) => {
        events.append({
          process: r.process,
          role: r.role,
          type: 'approval.answered',
          approval: a.id,
          kind: r.kind,
          ...(r.server !== undefined ? { server: r.server } : {}),
          ...(r.tool !== undefined ? { tool: r.tool } : {}),
          decision: a.decision,
          by: a.by,
          how: a.how,
          ...(a.reason !== undefined ? { text: a.reason } : {}),
        });
      },
    });
    let refusals = 0;
    const onRefused = (r: Refusal): void => {
      refusals += 1;
      if (refusals > MAX_REFUSALS_RECORDED + 1) return;
      const more = refusals > MAX_REFUSALS_RECORDED;
      const fields: Record<string, unknown> = { ...r };
      delete fields.message;
      queue.recordRefusal(
        more ? { code: r.code, more: 'later refusals are not recorded' } : fields,
      );
      events.append({
        process: 'supervisor',
        role: 'codex-mmo',
        type: 'approval.refused',
        ...(r.request !== undefined ? { approval: r.request } : {}),
        text: more ? `${r.code}; later refusals are not recorded` : refusalText(r),
      });
    };
    const floods: ListenerFlood[] = [];
    const key = await writeApprovalKey(approvalKeyPath(options.dir));
    const socket = await ApprovalSocket.listen(queue, options.socketPath, {
      key,
      owner: options.owner ?? osUser(),
      onRefused,
      limits: {
        ...options.limits,
        onFlood: (flood) => {
          floods.push(flood);
          events.append(floodEvent(flood));
        },
      },
    });
    return new SessionSupervision(queue, events, socket, options.secrets, options.dir, floods);
  }

  /** Records a session listener that reached its cap of connections waiting to authenticate. */
  listenerFlood(flood: ListenerFlood): void {
    this.floods.push(flood);
    this.events.append(floodEvent(flood));
  }

  /** What a failed session's cause adds for the floods so far; undefined when there were none. */
  floodCause(): string | undefined {
    return floodCause(this.floods);
  }

  get socketPath(): string {
    return this.socket.path;
  }

  /** The answer policy of one driven process (`root` or a participant id). */
  policyFor(
    process: string,
    role: string,
    secrets: readonly string[] = [],
    gate?: ApprovalGate,
  ): ApprovalPolicy {
    this.events.addSecrets(secrets);
    return queuePolicy(this.queue, {
      process,
      role,
      secrets: [...this.secrets, ...secrets],
      mask: (text) => this.events.mask(text),
      ...(gate !== undefined ? { gate } : {}),
    });
  }

  /** Logs the events of one app-server notification of a driven process. */
  notification(process: string, role: string, n: ServerNotification): void {
    for (const event of eventsOfNotification(process, role, n)) this.events.append(event);
  }

  event(input: EventInput): void {
    this.events.append(input);
  }

  /** Denies everything pending, closes the socket, removes its key and waits for the records to be written. */
  async close(reason = 'the session ended'): Promise<void> {
    await this.queue.close(reason);
    await this.socket.close();
    await removeApprovalKey(approvalKeyPath(this.dir));
    await this.events.flushed();
    await this.queue.flushed();
  }
}
