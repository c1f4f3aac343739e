/**
 * Relay tokens: one random token per Codex process and Tool MCP server, known only to the
 * gateway's memory (by SHA-256 digest) and to that process's environment. A token is accepted
 * once: the first relay connection that presents it spends it, and every later connection with
 * it is refused, so a token read out of a process environment afterwards opens nothing.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Which route of the gateway a token opens: a process of the session and one of its servers. */
export interface RouteKey {
  readonly process: string;
  readonly server: string;
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export type Redemption =
  | { readonly ok: true; readonly route: RouteKey }
  | { readonly ok: false; readonly reason: 'unknown' | 'spent' };

export class RelayTokens {
  private readonly live = new Map<string, RouteKey>();
  private readonly spent = new Set<string>();
  private readonly byRoute = new Map<string, string>();

  /** A fresh token for `route` (32 random bytes, base64url), replacing an unspent earlier one. */
  issue(route: RouteKey): string {
    const key = `${route.process}\u0000${route.server}`;
    const earlier = this.byRoute.get(key);
    if (earlier !== undefined) this.live.delete(earlier);
    const token = randomBytes(32).toString('base64url');
    const hashed = digest(token);
    this.live.set(hashed, route);
    this.byRoute.set(key, hashed);
    return token;
  }

  /** Spends `token`: its route the first time, a refusal every time after. */
  redeem(token: string): Redemption {
    if (token === '') return { ok: false, reason: 'unknown' };
    const hashed = digest(token);
    const route = this.live.get(hashed);
    if (route === undefined) {
      return { ok: false, reason: this.spent.has(hashed) ? 'spent' : 'unknown' };
    }
    this.live.delete(hashed);
    this.spent.add(hashed);
    return { ok: true, route };
  }

  /** Forgets every unspent token of `process` (the process has ended). */
  revokeProcess(process: string): void {
    for (const [hashed, route] of this.live) {
      if (route.process === process) {
        this.live.delete(hashed);
        this.spent.add(hashed);
      }
    }
  }
}
