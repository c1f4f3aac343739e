/**
 * One line of `<session>/calls.jsonl` (pure): who called which tool (or sent which other request)
 * of which server, what came of it and how long it took. Arguments are kept only as their size, a
 * digest and a short preview, all three computed after every string, number and key that holds a
 * credential value — in any encoding the gateway recognises — is replaced by `***`, and every
 * name taken from the message is masked the same way, so no line ever depends on a credential.
 */
import type { AnswerChannel } from '../protocol/approval-types.js';
import { MASK, maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { canonicalJson, sha256Hex } from '../../config/snapshot/canonical-json.js';
import {
  findCredentialIn,
  type CredentialMatcher,
} from '../../foundation/diagnostics/credential-scan.js';
import { numberTexts } from '../../foundation/diagnostics/credential-text.js';

export type CallOutcome = 'ok' | 'error' | 'blocked' | 'denied';

/**
 * Why a call was refused or failed, as recorded; with `ok`, `input-required` says the server asked
 * a 2026 client for more input and the call goes on as its retry.
 */
export type CallReason =
  | 'credential-in-arguments'
  | 'tool-not-granted'
  | 'tool-not-granted-to-role'
  | 'tool-drift'
  | 'method-not-allowed'
  | 'server-not-granted-to-role'
  | 'unexpected-response'
  | 'tool-error'
  | 'rpc-error'
  | 'cancelled'
  | 'server-gone'
  | 'tool-not-offered'
  | 'approval-denied'
  | 'approval-expired'
  | 'session-ended'
  | 'not-authorized'
  | 'answer-withheld'
  | 'input-required';

/** Why a call whose approval was not given is refused: by how its request was answered. */
export function denialReason(
  how: AnswerChannel,
): 'approval-denied' | 'approval-expired' | 'session-ended' | 'cancelled' {
  if (how === 'timeout') return 'approval-expired';
  if (how === 'session-ended') return 'session-ended';
  if (how === 'withdrawn') return 'cancelled';
  return 'approval-denied';
}

/**
 * How the server's answer was masked before Codex saw it: a credential value where it stood, a
 * value met only when parts of the answer are joined (each part masked), or the answer withheld
 * whole (never the value itself).
 */
export type AnswerMask = 'credential-in-answer' | 'credential-joined-in-answer' | 'answer-withheld';

export interface ArgumentsSummary {
  /** Bytes of the arguments' canonical JSON as received. */
  readonly size: number;
  /** `sha256:` of the redacted arguments' canonical JSON. */
  readonly digest: string;
  /** The start of the redacted arguments' canonical JSON. */
  readonly preview: string;
}

export interface CallRecord {
  readonly time: string;
  /** `root` or the participant id of the calling Codex process. */
  readonly process: string;
  /** The calling role when known (the process root's, for a call from the root thread). */
  readonly role: string | null;
  readonly thread: string | null;
  readonly parent_thread: string | null;
  readonly server: string;
  /** The tool of a `tools/call`; empty for any other method. */
  readonly tool: string;
  /** The MCP method (`tools/call`, `resources/read`, …; `response` for a client's answer). */
  readonly method?: string;
  readonly outcome: CallOutcome;
  readonly reason?: CallReason;
  /** How the server's answer was masked, when it held a credential value. */
  readonly masked?: AnswerMask;
  readonly duration_ms: number;
  readonly arguments?: ArgumentsSummary;
}

/** Characters of the redacted arguments kept as preview. */
export const PREVIEW_CHARS = 200;

/** `text` as a record may hold it: `***` when it holds a credential in any recognised form. */
export function safeText(
  text: string,
  matcher: CredentialMatcher,
  secrets: readonly string[],
): string {
  return matcher.find(text) !== undefined ? MASK : maskSecrets(text, secrets);
}

function redact(value: unknown, matcher: CredentialMatcher, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return safeText(value, matcher, secrets);
  if (typeof value === 'number') {
    return numberTexts(value).some((t) => safeText(t, matcher, secrets) !== t) ? MASK : value;
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, matcher, secrets));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[safeText(k, matcher, secrets)] = redact(v, matcher, secrets);
    }
    return out;
  }
  return value;
}

function canonical(value: unknown): string {
  try {
    return canonicalJson(value ?? null);
  } catch {
    return JSON.stringify(value ?? null);
  }
}

export function summarizeArguments(
  args: unknown,
  matcher: CredentialMatcher,
  secrets: readonly string[],
): ArgumentsSummary {
  const cleaned = redact(args ?? {}, matcher, secrets);
  const text = canonical(cleaned);
  // a value split over several items is found only when they are joined: then nothing is kept
  const whole =
    findCredentialIn(cleaned, matcher) !== undefined || matcher.find(text) !== undefined;
  const redacted = whole ? JSON.stringify(MASK) : text;
  const preview =
    redacted.length <= PREVIEW_CHARS ? redacted : `${redacted.slice(0, PREVIEW_CHARS)}…`;
  return {
    size: Buffer.byteLength(canonical(args ?? {})),
    digest: `sha256:${sha256Hex(redacted)}`,
    preview,
  };
}

export interface CallerThread {
  readonly thread: string | null;
  readonly parent_thread: string | null;
}

function record(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return record(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * The calling thread from a `tools/call`'s `_meta`: `threadId`, or `thread_id` and
 * `parent_thread_id` of `x-codex-turn-metadata` (an object, or JSON text of one).
 */
export function callerThread(meta: unknown): CallerThread {
  const m = record(meta);
  if (m === undefined) return { thread: null, parent_thread: null };
  const turn = record(m['x-codex-turn-metadata']);
  return {
    thread: text(m.threadId) ?? text(turn?.thread_id),
    parent_thread: text(turn?.parent_thread_id) ?? text(m.parentThreadId),
  };
}
