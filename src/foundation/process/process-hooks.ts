/**
 * Hooks on this process's exit and terminating signals, behind one listener per event however
 * many are added: a session with dozens of servers adds one `exit` listener, not one per server
 * (which Node would report as a possible leak). A hook runs once per event, in the order added.
 */
type Hook = (signal: NodeJS.Signals) => void;
type HookEvent = 'exit' | NodeJS.Signals;

const hooks = new Map<HookEvent, Set<Hook>>();
const dispatchers = new Map<HookEvent, (arg: unknown) => void>();

function dispatcher(event: HookEvent): (arg: unknown) => void {
  const known = dispatchers.get(event);
  if (known !== undefined) return known;
  const run = (arg: unknown): void => {
    for (const hook of [...(hooks.get(event) ?? [])]) {
      hook(typeof arg === 'string' ? (arg as NodeJS.Signals) : (event as NodeJS.Signals));
    }
  };
  dispatchers.set(event, run);
  return run;
}

/** Runs `hook` when this process emits `event` (its exit, or a signal). */
export function addProcessHook(event: HookEvent, hook: Hook): void {
  let set = hooks.get(event);
  if (set === undefined) {
    set = new Set();
    hooks.set(event, set);
    process.on(event, dispatcher(event));
  }
  set.add(hook);
}

/** Removes `hook`; the last one removed takes the listener with it. */
export function removeProcessHook(event: HookEvent, hook: Hook): void {
  const set = hooks.get(event);
  if (set?.delete(hook) !== true || set.size > 0) return;
  hooks.delete(event);
  process.removeListener(event, dispatcher(event));
}
