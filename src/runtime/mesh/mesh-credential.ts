/**
 * Per-process mesh credentials: a random token for each Codex process of a session (the session
 * root and every participant), known only to the session broker's memory and to that process's
 * environment. The broker identifies a `mesh serve` connection by the token it presents, never by
 * the role or participant id it claims. Tokens are kept by their SHA-256 digest.
 */
import { createHash, randomBytes } from 'node:crypto';

export { MESH_TOKEN_ENV } from '../../config/compile/types.js';

/** Who a credential belongs to: the process root role and `root` or the participant id. */
export interface MeshIdentity {
  readonly process: string;
  readonly participant: string;
}

/** A fresh credential: 32 random bytes, base64url. */
export function newMeshToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The credentials a broker has issued, by digest; lookups do not compare token text. */
export class MeshCredentials {
  private readonly byDigest = new Map<string, MeshIdentity>();
  private readonly byParticipant = new Map<string, string>();

  /** Issues a credential for `identity`, replacing any earlier one of the same participant. */
  issue(identity: MeshIdentity): string {
    this.revoke(identity.participant);
    const token = newMeshToken();
    const key = digest(token);
    this.byDigest.set(key, identity);
    this.byParticipant.set(identity.participant, key);
    return token;
  }

  /** The identity a presented token belongs to, or undefined. */
  identify(token: string): MeshIdentity | undefined {
    if (token === '') return undefined;
    return this.byDigest.get(digest(token));
  }

  /** Forgets the credential of `participant` (`root` or a participant id). */
  revoke(participant: string): void {
    const key = this.byParticipant.get(participant);
    if (key === undefined) return;
    this.byDigest.delete(key);
    this.byParticipant.delete(participant);
  }
}
