/**
 * The capability behind a session's approval socket: a random key the supervising process writes
 * (mode 0600) into the session directory, which every sandbox of the session is denied to read.
 * A caller proves it holds the key by an HMAC over the server's one-time challenge, its own nonce
 * and the exact request text; the server proves it back over the reply. The key never crosses
 * the socket, and a captured exchange is worth nothing on another connection.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** File name of the key in the session directory. */
export const APPROVAL_KEY_FILE = 'approvals.key';

/** `<session>/approvals.key`. */
export function approvalKeyPath(sessionDir: string): string {
  return join(sessionDir, APPROVAL_KEY_FILE);
}

/** A fresh key (32 random bytes) written 0600 at `path`; a file already there is replaced. */
export async function writeApprovalKey(path: string): Promise<Buffer> {
  const key = randomBytes(32);
  await unlink(path).catch(() => undefined);
  await writeFile(path, key.toString('base64url'), { mode: 0o600, flag: 'wx' });
  return key;
}

/** The key at `path`; rejects when it cannot be read or is not a key. */
export async function readApprovalKey(path: string): Promise<Buffer> {
  const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
  if (key.length !== 32) throw new Error(`${path} does not hold an approval key`);
  return key;
}

export async function removeApprovalKey(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

/** A one-time nonce (base64url). */
export function newNonce(): string {
  return randomBytes(24).toString('base64url');
}

function mac(key: Buffer, parts: readonly string[]): string {
  return createHmac('sha256', key).update(parts.join('\n'), 'utf8').digest('hex');
}

/** The caller's proof for `body` on a connection whose challenge was `challenge`. */
export function requestProof(key: Buffer, challenge: string, nonce: string, body: string): string {
  return mac(key, ['codex-mmo approvals request', challenge, nonce, body]);
}

/** The server's proof for its reply `body` to a request with `nonce`. */
export function replyProof(key: Buffer, challenge: string, nonce: string, body: string): string {
  return mac(key, ['codex-mmo approvals reply', challenge, nonce, body]);
}

/** Whether `proof` equals `expected` (constant time; anything but a string is wrong). */
export function proofMatches(proof: unknown, expected: string): boolean {
  if (typeof proof !== 'string' || proof.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(proof, 'utf8'), Buffer.from(expected, 'utf8'));
}
