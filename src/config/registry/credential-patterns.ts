/**
 * Recognises credentials written where only non-secret literals belong: variable and header names
 * that carry secrets (`*TOKEN*`, `Authorization`, …) and values shaped like well-known tokens
 * (`sk-…`, `ghp_…`, JWTs, `Bearer …`, PEM private keys, …). Callers report the key, never the value.
 */

/** Substrings of a name (upper-cased, separators removed) that mark it as a credential. */
const NAME_SUBSTRINGS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'APIKEY',
  'PRIVATEKEY',
  'CREDENTIAL',
  'ACCESSKEY',
  'SESSIONKEY',
  'AUTHKEY',
  'SIGNINGKEY',
  'CLIENTKEY',
  'MASTERKEY',
] as const;

/** Whole words of a name (split on `_`, `-` and `.`) that mark it as a credential. */
const NAME_WORDS = new Set([
  'AUTH',
  'AUTHORIZATION',
  'COOKIE',
  'COOKIES',
  'PASS',
  'PAT',
  'JWT',
  'BEARER',
  'APIKEY',
  'SIG',
  'SIGNATURE',
  'LICENSE',
  'LICENCE',
]);

function words(name: string): string[] {
  return name
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Whether a variable, header or query-parameter name is recognisably a credential, e.g.
 * `GITHUB_TOKEN`, `DB_PASSWORD`, `X-Api-Key`, `Authorization`, `Proxy-Authorization`, `Cookie`,
 * `Set-Cookie`, `X-Auth-Token`, `OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`. Case-insensitive.
 */
export function isCredentialName(name: string): boolean {
  const parts = words(name);
  const compact = parts.join('');
  for (const fragment of NAME_SUBSTRINGS) {
    if (compact.includes(fragment)) return true;
  }
  if (parts.some((w) => NAME_WORDS.has(w))) return true;
  // `STRIPE_KEY`, `X-Subscription-Key`: a name ending in the word KEY (not `SSH_KEY_PATH`)
  const last = parts[parts.length - 1];
  return last === 'KEY' || last === 'KEYS';
}

/**
 * Token shapes of well-known services. Each is anchored on a non-token character before the
 * prefix so that ordinary words (`task-…`) do not match, and uses only bounded, linear patterns.
 */
const VALUE_PATTERNS: readonly RegExp[] = [
  // OpenAI / Anthropic / generic `sk-…` secret keys
  /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/,
  // Stripe secret and restricted keys
  /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/,
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens
  /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{20,}/,
  /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}/,
  // Slack tokens
  /(?<![A-Za-z0-9_-])xox[abprse]-[A-Za-z0-9-]{10,}/,
  /(?<![A-Za-z0-9_-])xapp-[A-Za-z0-9-]{10,}/,
  // AWS access key IDs
  /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Z0-9])/,
  // JSON Web Tokens
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/,
  // GitLab tokens
  /(?<![A-Za-z0-9_-])gl(?:pat|dt|ptt|rt|oas|cbt|imt|ft)-[A-Za-z0-9_-]{16,}/,
  // Google API keys
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{30,}/,
  // npm, PyPI, Hugging Face, DigitalOcean, Shopify, Linear, Atlassian tokens
  /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{30,}/,
  /(?<![A-Za-z0-9_-])pypi-[A-Za-z0-9_-]{40,}/,
  /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}/,
  /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{40,}/,
  /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{20,}/,
  /(?<![A-Za-z0-9_])lin_(?:api|oauth)_[A-Za-z0-9]{20,}/,
  /(?<![A-Za-z0-9_-])ATATT[A-Za-z0-9_=-]{20,}/,
  // PEM private key blocks (RSA, EC, OPENSSH, ENCRYPTED, PKCS#8 …)
  /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----/,
  // HTTP authorization values: `Bearer …`, `Basic …`, `Token …`, `Digest …`
  /^\s*(?:bearer|basic|token|digest)\s+[A-Za-z0-9._~+/=:-]{6,}/i,
];

const SHORT_WORD = /^[A-Za-z0-9_-]*$/;

/**
 * Whether a literal value has the shape of a well-known credential (`sk-…`, `ghp_…`/`gho_…`/
 * `ghu_…`/`ghs_…`/`ghr_…`, `github_pat_…`, `xox[abprs]-…`, `AKIA…`/`ASIA…`, JWTs, `Bearer …`,
 * `Basic …`, `glpat-…`, `AIza…`, PEM private keys, …) anywhere in it.
 */
export function isCredentialValue(value: string): boolean {
  // the shortest shapes above (`xoxb-` and ten characters) are 15 characters long; a shorter word
  // of letters, digits, `_` and `-` (an id, a tool name) matches none of them
  if (value.length < 15 && SHORT_WORD.test(value)) return false;
  return hasCredentialShape(value);
}

/** `isCredentialValue` without its short-word shortcut: every pattern is tried. */
export function hasCredentialShape(value: string): boolean {
  for (const pattern of VALUE_PATTERNS) {
    if (pattern.test(value)) return true;
  }
  return hasEmbeddedCredential(value);
}

/**
 * Secret-bearing shapes inside a longer value, beyond the token shapes: a URL whose user-info has
 * a password (`postgres://user:pass@db`), a webhook URL whose path is the secret
 * (`hooks.slack.com/services/…`, Discord, Teams, Zapier, Telegram bot URLs), an `Authorization`-
 * style `Bearer …` anywhere, and a `NAME=value` assignment whose name is a credential
 * (`--api-key=…`, `API_TOKEN=…`, `auth=Bearer …`, `#token=…`, `;api_key=…`).
 */
const EMBEDDED_PATTERNS: readonly RegExp[] = [
  // URL user-info with a (non-empty) password
  /[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s/?#@:]{0,256}:[^\s/?#@]{1,256}@/,
  // webhook URLs whose path carries the secret
  /hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]/i,
  /discord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks\/\d/i,
  /\.webhook\.office\.com\/webhookb2\//i,
  /outlook\.office(?:365)?\.com\/webhook\//i,
  /hooks\.zapier\.com\/hooks\/catch\//i,
  /api\.telegram\.org\/bot\d+:/i,
  /chat\.googleapis\.com\/v1\/spaces\/[^\s]*[?&](?:key|token)=/i,
  // a bearer credential anywhere in the value
  /(?<![A-Za-z0-9])bearer\s+[A-Za-z0-9._~+/=-]{8,}/i,
];

/** Last words of a name that make it name a place or a reference, not a secret. */
const REFERENCE_WORDS = new Set([
  'FILE',
  'FILES',
  'PATH',
  'DIR',
  'ENV',
  'VAR',
  'VARIABLE',
  'NAME',
  'FD',
  'URL',
  'TYPE',
  'MODE',
  'HEADER',
  'LENGTH',
  'TTL',
  'EXPIRY',
]);

/**
 * Whether `name` (a flag or assignment name, leading dashes removed) names a secret, as opposed
 * to where one is kept (`--token-file`, `--token-env`) or a switch (`--no-auth`).
 */
export function isSecretOptionName(name: string): boolean {
  const bare = name.replace(/^-+/, '');
  if (bare === '' || /^no[-_]/i.test(bare)) return false;
  const parts = words(bare);
  const last = parts[parts.length - 1];
  if (last === undefined || REFERENCE_WORDS.has(last)) return false;
  return isCredentialName(bare);
}

/** Characters that separate one `name=value` unit from the next inside a longer value. */
const UNIT_SEPARATORS = /[\s;,&?#|]+/;

function hasEmbeddedCredential(value: string): boolean {
  for (const pattern of EMBEDDED_PATTERNS) {
    if (pattern.test(value)) return true;
  }
  if (!value.includes('=')) return false;
  for (const unit of value.split(UNIT_SEPARATORS)) {
    const eq = unit.indexOf('=');
    if (eq <= 0 || eq === unit.length - 1) continue;
    const name = unit.slice(0, eq);
    if (/^-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,100}$/.test(name) && isSecretOptionName(name))
      return true;
  }
  return false;
}

/**
 * The indexes of the entries of an `args` array that carry a secret: an entry that is itself
 * secret-shaped (see `isCredentialValue`: `--api-key=V`, `API_TOKEN=V`, `sk-…`, a URL with a
 * password, …) and the entry after a secret-naming flag (`--token V`, `--password V`). Only
 * indexes come back, so callers can name `args[2]` without the value.
 */
export function secretArgIndexes(args: readonly string[]): number[] {
  const found = new Set<number>();
  for (const [index, arg] of args.entries()) {
    if (isCredentialValue(arg)) found.add(index);
    const next = args[index + 1];
    if (
      next !== undefined &&
      next !== '' &&
      !next.startsWith('-') &&
      /^--?[A-Za-z][A-Za-z0-9_.-]{0,100}$/.test(arg) &&
      isSecretOptionName(arg)
    ) {
      found.add(index + 1);
    }
  }
  return [...found].sort((a, b) => a - b);
}

/** Query-parameter names that carry credentials in URLs, beyond what `isCredentialName` knows. */
const QUERY_NAMES = new Set([
  'key',
  'sig',
  'signature',
  'auth',
  'authorization',
  'jwt',
  'bearer',
  'pass',
  'pwd',
  'sessionid',
  'session_id',
]);

/**
 * Whether a URL query-parameter name is recognisably a credential: `token`, `key`, `api_key`,
 * `apikey`, `access_token`, `secret`, `password`, `sig`, `signature`, `auth`, `X-Amz-Signature`, ….
 */
export function isCredentialQueryName(name: string): boolean {
  const lower = name.toLowerCase();
  return QUERY_NAMES.has(lower.replace(/-/g, '_')) || isCredentialName(name);
}
