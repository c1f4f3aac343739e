/**
 * Bearer tokens of the gateway's HTTP routes: one random token per Codex process and Tool MCP
 * server (and a process's mesh credential for its `mmo_mesh` route), known only to the gateway's
 * memory (by SHA-256 digest, looked up by digest so no comparison depends on the token's
 * characters) and to that process's environment.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { RouteKey } from './gateway-credentials.js';

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function keyOf(route: RouteKey): string {
  return `${route.process}\u0000${route.server}`;
}

export class HttpTokens {
  private readonly live = new Map<string, RouteKey>();
  private readonly byRoute = new Map<string, string>();
  /** Digests of tokens whose process has ended (they open nothing). */
  private readonly ended = new Set<string>();

  /** A fresh token for `route` (32 random bytes, base64url), replacing an earlier one. */
  issue(route: RouteKey): string {
    const token = randomBytes(32).toString('base64url');
    this.register(token, route);
    return token;
  }

  /** Registers `token` for `route` (a process's mesh credential is made elsewhere). */
  register(token: string, route: RouteKey): void {
    const earlier = this.byRoute.get(keyOf(route));
    if (earlier !== undefined) this.live.delete(earlier);
    const hashed = digest(token);
    this.live.set(hashed, route);
    this.byRoute.set(keyOf(route), hashed);
  }

  /** The route `token` opens, or undefined. */
  lookup(token: string): RouteKey | undefined {
    return token === '' ? undefined : this.live.get(digest(token));
  }

  /** Whether `token` belonged to a process that has ended. */
  isEnded(token: string): boolean {
    return token !== '' && this.ended.has(digest(token));
  }

  /** Forgets every token of `process` (the process has ended). */
  revokeProcess(process: string): void {
    for (const [hashed, route] of this.live) {
      if (route.process !== process) continue;
      this.live.delete(hashed);
      this.ended.add(hashed);
      this.byRoute.delete(keyOf(route));
    }
  }
}
