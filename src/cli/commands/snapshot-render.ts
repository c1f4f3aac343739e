/**
 * `codex-mmo snapshot render ID [--process ROLE] [--out DIR [--force]] [--json]`: the Codex configuration of
 * one process of a snapshot (`config.toml` and `agents/*.toml`), printed or written into DIR. The
 * `mmo_mesh` command is a marked placeholder here; a session fills it in at launch.
 */
import { resolve } from 'node:path';

import { planOfSnapshot, readSnapshot, renderProcess, writeRenderedHome } from '../../index.js';
import { codexInUse } from '../../runtime/codex/index.js';
import { parseCommand, printCaughtError, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo snapshot render ID [--process ROLE] [--out DIR [--force]] [--json]

Render the Codex home of one process of a stored snapshot: config.toml (servers with the process
root's grants, [agents.N] declarations, instructions, model, sandbox, codex-base.toml settings)
and agents/N.toml for every native role. ID is 'sha256:<hex>' or a unique prefix. The files are
rendered for the Codex version that would run them (--codex-bin, $CODEX_MMO_CODEX_BIN or PATH;
the newest supported version when none is found).

Options:
  --process ROLE   the process root role (default: the profile's root, the session process)
  --out DIR        write config.toml and agents/ into DIR instead of printing them
  --force          with --out, replace existing files of other content and symbolic links in
                   DIR (a link is replaced, never written through)

Exit status: 0 rendered, 1 no such snapshot or process, the snapshot is damaged, or DIR holds
a role file that is not part of this rendering, or (without --force) a file of other content or
a symbolic link where a rendered file goes; 2 a malformed or ambiguous ID.

JSON: {"id", "process", "files": {PATH: TEXT}} or, with --out, {"id", "process", "dir", "files": [PATH]}`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    { process: { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' } },
    { min: 1, max: 1 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const processOption = cmd.values.process;
  const outOption = cmd.values.out;
  try {
    const stored = await readSnapshot(cmd.dirs.dataDir, cmd.positionals[0] ?? '');
    const plan = planOfSnapshot(stored.snapshot);
    const processRoot = typeof processOption === 'string' ? processOption : plan.root;
    // keys the Codex that would run it rejects are left out, as at launch
    const codex = await codexInUse(cmd.dirs.codexBin, io.env, io.cwd);
    const home = renderProcess(stored.snapshot, plan, processRoot, {
      home: io.home,
      codex: codex.facts,
    });
    if (typeof outOption === 'string') {
      const dir = resolve(io.cwd, outOption);
      await writeRenderedHome(home, dir, { overwrite: cmd.values.force === true });
      if (cmd.json) {
        printJson(io, { id: stored.id, process: processRoot, dir, files: [...home.files.keys()] });
      } else {
        io.stdout(
          `wrote the Codex home of process ${processRoot} to ${dir}: ${[...home.files.keys()].join(', ')}\n`,
        );
      }
      return EXIT_OK;
    }
    if (cmd.json) {
      printJson(io, { id: stored.id, process: processRoot, files: Object.fromEntries(home.files) });
      return EXIT_OK;
    }
    const parts: string[] = [];
    for (const [path, text] of home.files) parts.push(`# ==> ${path} <==\n${text}`);
    io.stdout(parts.join('\n'));
    return EXIT_OK;
  } catch (error) {
    return printCaughtError(io, cmd.json, error);
  }
}
