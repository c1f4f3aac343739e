/**
 * The participant cap of a session: how many participants may run at once. Resolves the
 * `--max-participants` option of `run` and `exec` (absent: the default of 8) into a number, or a
 * message saying what the option needs; the session broker refuses a spawn beyond it.
 */

/** Participants a session runs at once unless `--max-participants` says otherwise. */
export const DEFAULT_MAX_PARTICIPANTS = 8;

export type MaxParticipants =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly message: string };

/** The cap `--max-participants` asks for: a whole number (0 or more); absent, the default. */
export function resolveMaxParticipants(option: string | undefined): MaxParticipants {
  if (option === undefined) return { ok: true, value: DEFAULT_MAX_PARTICIPANTS };
  const value = /^\d+$/.test(option) ? Number(option) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    return {
      ok: false,
      message: `option '--max-participants' needs a whole number of participants (0 or more), not '${option}'`,
    };
  }
  return { ok: true, value };
}
