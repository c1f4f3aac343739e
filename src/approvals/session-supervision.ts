/**
 * What a session's supervising process keeps for people: the approval queue with its socket, and
 * the event log. It hands each driven Codex process an answer policy that sends approvals to the
 * queue, turns app-server notifications and queue activity into events, and on `close` denies
 * whatever is still pending before the socket goes away (fail closed).
 */
import type { ApprovalPolicy } from '../codex/app-server-client.js';
import type { ServerNotification } from '../codex/app-server-protocol.js';
import { EventLog } from '../events/event-log.js';
import { eventsOfNotification } from '../events/notification-events.js';
import type { EventInput } from '../events/session-event.js';
import type { ApprovalGate } from './approval-gate.js';
import { queuePolicy } from './approval-policy.js';
import { ApprovalQueue } from './approval-queue.js';
import { ApprovalSocket } from './approval-socket.js';

export interface SupervisionOptions {
  readonly session: string;
  readonly dir: string;
  readonly socketPath: string;
  readonly timeoutSec: number;
  /** Values masked in every event and every request shown to people. */
  readonly secrets: readonly string[];
}

export class SessionSupervision {
  private constructor(
    readonly queue: ApprovalQueue,
    readonly events: EventLog,
    private readonly socket: ApprovalSocket,
    private readonly secrets: readonly string[],
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
    const socket = await ApprovalSocket.listen(queue, options.socketPath);
    return new SessionSupervision(queue, events, socket, options.secrets);
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

  /** Denies everything pending, closes the socket and waits for the records to be written. */
  async close(reason = 'the session ended'): Promise<void> {
    await this.queue.close(reason);
    await this.socket.close();
    await this.events.flushed();
    await this.queue.flushed();
  }
}
