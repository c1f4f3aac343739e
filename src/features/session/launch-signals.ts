/**
 * The start of a session's end: a signal forwarded to the session root Codex (the session then
 * ends as `stopped`), and the moment from which no request of any process is forwarded or put to
 * a person — each is refused and recorded as `session-ended`, the servers and processes end after.
 */
import type { SessionServices } from './launch-services.js';
import type { RootProcess } from './launch-root.js';
import type { SessionPlan } from './prepare-session.js';

export interface SessionSignals {
  /** The terminating signal forwarded to Codex, if any. */
  readonly forwarded: NodeJS.Signals | undefined;
  /** Refuses every request from now on (once); `signal` is logged as the reason. */
  beginEnding(signal?: NodeJS.Signals): void;
  /** Forwards `signal` to a root that still runs, and begins the ending. */
  signal(signal: NodeJS.Signals): void;
}

export function sessionSignals(
  plan: SessionPlan,
  services: SessionServices,
  root: RootProcess,
): SessionSignals {
  const { gateway, supervision } = services;
  let forwarded: NodeJS.Signals | undefined;
  // once the session is ending, no request of any process is forwarded or put to a person:
  // each is refused and recorded as `session-ended` (the servers and processes end after)
  let ending = false;
  const beginEnding = (signal?: NodeJS.Signals): void => {
    if (ending) return;
    ending = true;
    gateway.hub.beginStop();
    // a stop is logged; a root that ended on its own says so with its `process.ended`
    if (signal !== undefined) {
      supervision.event({
        process: 'root',
        role: plan.rootRole,
        type: 'session.ending',
        text: `stopped by ${signal}`,
      });
    }
    void supervision.queue.close('the session ended');
  };
  return {
    get forwarded() {
      return forwarded;
    },
    beginEnding,
    signal(signal) {
      const { execRoot, child } = root;
      if (execRoot !== undefined) {
        forwarded = signal;
        beginEnding(signal);
        execRoot.stop();
        return;
      }
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        forwarded = signal;
        beginEnding(signal);
        root.container?.signal(signal);
      }
    },
  };
}
