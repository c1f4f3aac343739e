/**
 * The data model of operator credentials: where each referenced variable's value comes from.
 * Values are held only in `CredentialSource.values` and never appear in any report.
 */

export type CredentialOrigin = 'environment' | 'credentials.env';

/** Merged view of the launch environment and `credentials.env` (launch environment wins). */
export interface CredentialSource {
  /** Absolute path of credentials.env, whether or not it exists. */
  readonly file: string;
  readonly fileExists: boolean;
  /** Look up a value and its origin. The value must never be printed, logged or stored. */
  lookup(name: string): { readonly origin: CredentialOrigin; readonly value: string } | undefined;
  /** Every value known to this source, for masking output of child processes. */
  secretValues(): readonly string[];
  /** Names with a value in credentials.env (sources built elsewhere may not know them). */
  fileNames?(): readonly string[];
}

/** Presence of one variable, safe to print. */
export interface VariablePresence {
  readonly name: string;
  readonly present: boolean;
  readonly origin?: CredentialOrigin;
}
