/**
 * The shell blocks of a Markdown doc and their markers: `<!-- runnable -->` on the line above a
 * ```bash or ```console fence marks a block a test runs, `<!-- not-runnable: REASON -->` one it
 * leaves out for the reason given. A bash block is one command; a console block's commands are
 * its `$ ` lines, each with the body of a here-document it opens.
 */

export interface ShellBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  /** The `##` heading the block is under ('' before the first). */
  readonly section: string;
  readonly marker:
    { readonly runnable: true } | { readonly runnable: false; readonly reason: string } | undefined;
  readonly commands: readonly DocCommand[];
}

export interface DocCommand {
  readonly text: string;
  /** The lines the doc shows as its output (console blocks). */
  readonly shown: readonly string[];
}

const MARKER = /^<!--\s*(runnable|not-runnable:\s*(.*?))\s*-->$/;

/** Every ```bash, ```sh and ```console block of `text`. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  const lines = text.split('\n');
  const out: ShellBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('## ')) section = line.slice(3).trim();
    const open = /^```(\w*)\s*$/.exec(line);
    if (open === null) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j] ?? '')) body.push(lines[j++] ?? '');
    const lang = open[1] ?? '';
    if (['bash', 'sh', 'console'].includes(lang)) {
      const m = MARKER.exec((lines[i - 1] ?? '').trim());
      const marker =
        m === null
          ? undefined
          : m[1] === 'runnable'
            ? ({ runnable: true } as const)
            : ({ runnable: false, reason: m[2] ?? '' } as const);
      const commands =
        lang === 'console' ? consoleCommands(body) : [{ text: body.join('\n'), shown: [] }];
      out.push({ file, line: i + 1, lang, section, marker, commands });
    }
    i = j;
  }
  return out;
}

function consoleCommands(body: readonly string[]): DocCommand[] {
  const out: { text: string; shown: string[] }[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i] ?? '';
    if (!line.startsWith('$ ')) {
      out.at(-1)?.shown.push(line);
      continue;
    }
    const text = [line.slice(2)];
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(line);
    if (heredoc !== null) {
      while (i + 1 < body.length) {
        const next = body[++i] ?? '';
        text.push(next);
        if (next === heredoc[1]) break;
      }
    }
    out.push({ text: text.join('\n'), shown: [] });
  }
  return out;
}
