/**
 * Drives an interactive program (Codex's TUI under `codex-mmo run`) through a pseudo-terminal,
 * with util-linux `script` as the pty (no native module): start it at a fixed size, read what it
 * draws with escape sequences removed, type keys, wait for text, and collect its exit code.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface TuiOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols?: number;
  readonly rows?: number;
}

export interface Tui {
  /** The `script` process; its pid leads the process group of the driven program. */
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything drawn so far, escape sequences removed. */
  text(): string;
  /** Types `keys` (raw bytes: `\r` is Enter, `\x03` is Ctrl-C). */
  type(keys: string): void;
  /** Resolves once the drawn text matches `pattern`; rejects with the text after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** The program's exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Keys the TUIs understand. */
export const KEYS = { enter: '\r', ctrlC: '\x03', ctrlD: '\x04', escape: '\x1b' } as const;

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Removes CSI, OSC and other escape sequences, so the text reads as the screen would. */
export function stripEscapes(raw: string): string {
  /* eslint-disable no-control-regex -- escape sequences are control characters */
  return raw
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1bP[^\x1b]*\x1b\\/g, '')
    .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[ -~]/g, '');
  /* eslint-enable no-control-regex */
}

/** Starts `command args…` in a pseudo-terminal of `cols`×`rows` (default 120×40). */
export function startTui(command: string, args: readonly string[], options: TuiOptions): Tui {
  const line = [command, ...args].map(shellQuote).join(' ');
  const size = `stty cols ${options.cols ?? 120} rows ${options.rows ?? 40} 2>/dev/null`;
  const child = spawn('script', ['-qfec', `${size}; exec ${line}`, '/dev/null'], {
    cwd: options.cwd,
    env: { TERM: 'xterm-256color', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const text = (): string => stripEscapes(raw);
  return {
    child,
    text,
    type: (keys) => {
      if (child.stdin.writable) child.stdin.write(keys);
    },
    waitFor: (pattern, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const timer = setInterval(() => {
          if (pattern.test(text())) {
            clearInterval(timer);
            resolve();
          } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
            clearInterval(timer);
            if (pattern.test(text())) resolve();
            else reject(new Error(`no ${String(pattern)} on the screen:\n${text().slice(-3000)}`));
          }
        }, 50);
      }),
    exited,
  };
}

/**
 * A step for a wait loop: answers Codex 0.171's question about opening an untrusted folder with
 * Enter (its highlighted "Open restricted"), and again every `everyMs` while `started()` is false,
 * since a key typed while the dialog is being drawn can be lost. Once the first turn has started
 * (the dialog is gone) it never types again: a later Enter could answer another prompt.
 */
export function folderTrustAnswerer(tui: Tui, started: () => boolean, everyMs = 3000): () => void {
  let pressedAt = 0;
  return () => {
    if (started()) return;
    if (!tui.text().includes('Open restricted')) return;
    if (Date.now() - pressedAt < everyMs) return;
    pressedAt = Date.now();
    tui.type(KEYS.enter);
  };
}

/** The drawn text without whitespace: the TUI moves the cursor instead of printing spaces. */
export function compact(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * Types `key` until `done` holds, again every 4 s: a key typed while the TUI still draws can be
 * lost, and the keys these tests type choose the same answer however often they are typed. Fails
 * after `ms` with the end of the screen.
 */
export async function typeUntil(
  tui: Tui,
  key: string,
  done: () => boolean | Promise<boolean>,
  ms = 60_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  let typedAt = 0;
  while (!(await done())) {
    if (Date.now() > deadline) {
      throw new Error(`not done in ${String(ms)} ms; the screen:\n${tui.text().slice(-4000)}`);
    }
    if (Date.now() - typedAt > 4000) {
      typedAt = Date.now();
      tui.type(key);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
