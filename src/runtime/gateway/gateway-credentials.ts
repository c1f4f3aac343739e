/**
 * Relay tokens: one random token per Codex process and Tool MCP server, known only to the
 * gateway's memory (by SHA-256 digest) and to that process's environment. A token is accepted
 * once per Codex process: the first relay connection that presents it spends it, and a later
 * connection with it is accepted only from another relay that the same Codex process started
 * (a native sub-agent opens its own connection), each relay once; any other is refused, so a
 * token read out of a process environment afterwards opens nothing.
 */
import { createHash, randomBytes } from 'node:crypto';

import { sameProcess, type RelayLineage } from './relay-lineage.js';

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

interface Spent {
  readonly route: RouteKey;
  /** The first relay's lineage while its process lives; undefined: the token opens nothing more. */
  origin: RelayLineage | undefined;
  /** Relays (pid and start time) that connected with the token. */
  readonly relays: RelayLineage['relay'][];
}

export class RelayTokens {
  private readonly live = new Map<string, RouteKey>();
  private readonly spent = new Map<string, Spent>();
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

  /**
   * Spends `token` for the relay `caller` (undefined when it cannot be told): its route the first
   * time; after that only for a relay not seen before whose parent is the first relay's parent
   * (same pid and start time), a refusal for anything else.
   */
  redeem(token: string, caller?: RelayLineage): Redemption {
    if (token === '') return { ok: false, reason: 'unknown' };
    const hashed = digest(token);
    const route = this.live.get(hashed);
    if (route === undefined) {
      const spent = this.spent.get(hashed);
      if (spent === undefined) return { ok: false, reason: 'unknown' };
      const origin = spent.origin;
      if (
        origin === undefined ||
        caller === undefined ||
        !sameProcess(origin.parent, caller.parent) ||
        spent.relays.some((relay) => sameProcess(relay, caller.relay))
      ) {
        return { ok: false, reason: 'spent' };
      }
      spent.relays.push(caller.relay);
      return { ok: true, route: spent.route };
    }
    this.live.delete(hashed);
    this.spent.set(hashed, {
      route,
      origin: caller,
      relays: caller === undefined ? [] : [caller.relay],
    });
    return { ok: true, route };
  }

  /** Forgets every token of `process`, spent or not (the process has ended). */
  revokeProcess(process: string): void {
    for (const [hashed, route] of this.live) {
      if (route.process === process) {
        this.live.delete(hashed);
        this.spent.set(hashed, { route, origin: undefined, relays: [] });
      }
    }
    for (const spent of this.spent.values()) {
      if (spent.route.process === process) spent.origin = undefined;
    }
  }
}
