/**
 * Keeps a running session's team budget: what it uses (participants and Codex processes from the
 * broker, server processes from the gateway, resident memory sampled from the supervisor's
 * process tree by polling `/proc`), the memory the broker and gateway check a start against, and
 * every refusal as a `budget.refused` event and a count — all recorded in `session.json`.
 */
import { treeResidentMb } from '../../foundation/process/process-tree.js';
import type { ParticipantInfo } from '../../runtime/protocol/mesh-protocol.js';
import { isActiveStatus, type SessionRecord } from '../../runtime/session/session-record.js';
import type { BudgetRefusal, TeamBudget, TeamUse } from '../../runtime/session/team-budget.js';
import type { EventInput } from '../../runtime/events/session-event.js';
import type { SessionGatewayOptions } from '../../runtime/gateway/session-gateway.js';
import type { RecordWriter } from './record-writer.js';

/** How often the session's memory is sampled for the record. */
const SAMPLE_MS = 5000;
/** The step in which recorded memory moves, so a sample rewrites the record only on growth. */
const MEMORY_STEP_MB = 8;
/** When the first memory sample is taken, after the start. */
const FIRST_SAMPLE_MS = 250;
/** A memory sample younger than this is reused by a start check. */
const FRESH_MS = 500;

/** The higher of each use. */
function highest(a: TeamUse, b: TeamUse): TeamUse {
  const memory = Math.max(a.memory_mb ?? 0, b.memory_mb ?? 0);
  return {
    participants: Math.max(a.participants, b.participants),
    codex_processes: Math.max(a.codex_processes, b.codex_processes),
    server_processes: Math.max(a.server_processes, b.server_processes),
    ...(a.memory_mb !== undefined || b.memory_mb !== undefined ? { memory_mb: memory } : {}),
  };
}

export class BudgetWatch {
  private use: TeamUse;
  /** The most of each the session has used so far (what `session show` gives once it ended). */
  private peak: TeamUse;
  private refused = 0;
  private sampled = { at: 0, mb: 0 };
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  /** What the record is yet to say, and the write that will say it. */
  private unwritten: SessionRecord['budget'];
  private pending: NodeJS.Immediate | undefined;
  /** What the record last said of the budget. */
  private recorded = '';

  constructor(
    readonly budget: TeamBudget,
    private readonly writer: RecordWriter,
    private readonly event: (event: EventInput) => void,
    private readonly root: number = process.pid,
  ) {
    this.use = { participants: 0, codex_processes: 1, server_processes: 0 };
    this.peak = this.use;
  }

  /**
   * Samples memory now and then, recording the use; stops with `stop`. The first sample waits
   * until the session's processes are starting, off the way of their start.
   */
  start(): void {
    this.record();
    const sampleAndRecord = (): void => {
      this.sample();
      this.record();
    };
    this.first = setTimeout(sampleAndRecord, FIRST_SAMPLE_MS);
    this.first.unref();
    this.timer = setInterval(sampleAndRecord, SAMPLE_MS);
    this.timer.unref();
  }

  /** Stops sampling, and writes what is not written yet. */
  stop(): void {
    if (this.first !== undefined) clearTimeout(this.first);
    if (this.timer !== undefined) clearInterval(this.timer);
    this.first = undefined;
    this.timer = undefined;
    this.write();
  }

  /** The resident memory of the session's processes now, in MB (a fresh sample). */
  memoryMb(): number {
    return Date.now() - this.sampled.at < FRESH_MS ? this.sampled.mb : this.sample();
  }

  participants(list: readonly ParticipantInfo[]): void {
    const alive = list.filter((p) => isActiveStatus(p.status)).length;
    this.change({ participants: alive, codex_processes: alive + 1 });
  }

  serverGroups(pids: readonly number[]): void {
    this.change({ server_processes: pids.length });
  }

  /** The gateway's part: its ceilings, the memory now, and who hears a refusal. */
  forGateway(): NonNullable<SessionGatewayOptions['budget']> {
    return {
      budget: this.budget,
      memoryMb: () => this.memoryMb(),
      onRefusal: (refusal, process, role) => {
        this.refusal(refusal, process, role);
      },
    };
  }

  /** A start a ceiling refused: an event in the calling role's name, and one more refusal. */
  refusal(refusal: BudgetRefusal, process: string, role: string, server?: string): void {
    this.refused += 1;
    this.event({
      process,
      role,
      type: 'budget.refused',
      kind: refusal.ceiling,
      ...(server !== undefined ? { server } : {}),
      text: refusal.message,
    });
    this.record();
  }

  private sample(): number {
    const mb = treeResidentMb(this.root);
    this.sampled = { at: Date.now(), mb };
    // recorded to 8 MB steps (rounded down): the record follows growth, not every page
    this.use = { ...this.use, memory_mb: Math.floor(mb / MEMORY_STEP_MB) * MEMORY_STEP_MB };
    return mb;
  }

  private change(part: Partial<TeamUse>): void {
    this.use = { ...this.use, ...part };
    this.record();
  }

  /**
   * Writes the budget into `session.json`, only when what it says changed; changes that come
   * together (servers starting at once) are written once.
   */
  private record(): void {
    this.peak = highest(this.peak, this.use);
    const budget = { ceilings: this.budget, use: this.use, peak: this.peak, refused: this.refused };
    const text = JSON.stringify(budget);
    if (text === this.recorded) return;
    this.recorded = text;
    this.unwritten = budget;
    this.pending ??= setImmediate(() => {
      this.write();
    });
  }

  private write(): void {
    if (this.pending !== undefined) clearImmediate(this.pending);
    this.pending = undefined;
    const budget = this.unwritten;
    this.unwritten = undefined;
    if (budget !== undefined) void this.writer.update((r) => ({ ...r, budget }));
  }
}
