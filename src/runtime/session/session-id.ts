/**
 * Session identifiers: a UTC timestamp to the millisecond followed by random hex, so that ids sort
 * by start time and never collide (`20260512T101530123Z-4f9a2c1e`).
 */
import { randomBytes } from 'node:crypto';

export const SESSION_ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/** A new session id for a session started at `now`. */
export function newSessionId(now: Date = new Date(), random: Buffer = randomBytes(4)): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${random.toString('hex').padStart(8, '0').slice(0, 8)}`;
}

export function isSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}
