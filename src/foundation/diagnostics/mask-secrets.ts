/**
 * Masks credential values in text from child processes and servers (stderr tails, error
 * messages, tool descriptions) before it is shown, logged or stored. Longer values are replaced first so overlapping values stay hidden;
 * values shorter than 4 characters are replaced where they stand alone (not inside a longer word),
 * so that a short secret is hidden without garbling every word that happens to contain it.
 */
import { terminalSafe } from '../text/terminal-safe.js';

export const MASK = '***';

/** Values this short are masked only as whole tokens. */
export const SHORT_SECRET_LENGTH = 4;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The forms a value takes when it passes through common encodings: as written, JSON/TOML-escaped
 * (a value with `"`, `\\` or a control character), terminal-safe (control characters written as
 * visible escapes, as output for a person shows them), URL-encoded (`%XX`, and `+` for spaces),
 * and base64 (standard, without padding, and URL-safe). Each form is masked like the value itself.
 */
export function secretForms(value: string): string[] {
  const forms = new Set([value]);
  const json = JSON.stringify(value).slice(1, -1);
  forms.add(json);
  forms.add(json.replace(/\//g, '\\/'));
  forms.add(terminalSafe(value));
  const url = encodeURIComponent(value);
  forms.add(url);
  forms.add(url.replace(/%20/g, '+'));
  forms.add(url.toLowerCase() === url ? url : url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  forms.add(base64);
  forms.add(base64.replace(/=+$/, ''));
  forms.add(Buffer.from(value, 'utf8').toString('base64url'));
  return [...forms].filter((f) => f === value || f.length >= SHORT_SECRET_LENGTH);
}

/** Each list's forms, with the contents they were worked out from; kept only as long as the list. */
const formsOf = new WeakMap<
  readonly string[],
  { readonly key: string; readonly forms: string[] }
>();

/**
 * Distinct non-empty values and their encoded forms, longest first. Worked out once per list
 * (output is masked line by line), and again whenever the list's contents differ from then.
 */
function ordered(secrets: readonly string[]): readonly string[] {
  const key = secrets.join('\u0000');
  const kept = formsOf.get(secrets);
  if (kept?.key === key) return kept.forms;
  const forms = [...new Set(secrets.filter((s) => s !== '').flatMap(secretForms))].sort(
    (a, b) => b.length - a.length,
  );
  formsOf.set(secrets, { key, forms });
  return forms;
}

/**
 * Replaces every occurrence of every value with `***`: anywhere for values of 4 or more
 * characters, as a whole token (not next to a letter or digit) for shorter ones.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of ordered(secrets)) {
    if (value.length >= SHORT_SECRET_LENGTH) {
      out = out.split(value).join(MASK);
    } else {
      out = out.replace(
        new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(value)}(?![A-Za-z0-9])`, 'g'),
        MASK,
      );
    }
  }
  return out;
}

/**
 * The largest position `<= cut` at which `text` may be split without cutting through a value:
 * no occurrence of a value starts before the split and ends after it, and the text after the
 * split does not begin inside what may be the start of a value still arriving.
 */
export function safeCut(text: string, cut: number, secrets: readonly string[]): number {
  const values = ordered(secrets);
  let at = cut;
  let moved = true;
  while (moved && at > 0) {
    moved = false;
    for (const value of values) {
      for (let start = Math.max(0, at - value.length + 1); start < at; start++) {
        const end = start + value.length;
        const straddles =
          end <= text.length ? text.startsWith(value, start) : value.startsWith(text.slice(start));
        if (straddles) {
          at = start;
          moved = true;
          break;
        }
      }
      if (moved) break;
    }
  }
  return at;
}

/**
 * Masks a stream of text, passing it on line by line. A partial line is passed on (masked) when
 * no newline follows within `flushMs`, except for any tail that may be the beginning of a value
 * split across chunks: that is held back until more text arrives or `end()` is called.
 */
export class MaskingStream {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly secrets: readonly string[],
    private readonly emit: (text: string) => void,
    private readonly flushMs = 200,
  ) {}

  push(chunk: string): void {
    if (chunk === '') return;
    this.pending += chunk;
    this.drain(this.pending.lastIndexOf('\n') + 1);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending !== '') {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.drain(this.pending.length);
      }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Passes on everything that can be passed on safely now. */
  flush(): void {
    this.drain(this.pending.length);
  }

  /** Passes on everything, masked; the stream has ended. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const rest = this.pending;
    this.pending = '';
    if (rest !== '') this.emit(maskSecrets(rest, this.secrets));
  }

  private drain(wanted: number): void {
    const cut = safeCut(this.pending, wanted, this.secrets);
    if (cut <= 0) return;
    const out = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    this.emit(maskSecrets(out, this.secrets));
  }
}

/** Masks every string (keys included) inside plain JSON data. */
export function maskDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskSecrets(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[maskSecrets(k, secrets)] = walk(item);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
