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

/**
 * Whether a literal value has the shape of a well-known credential (`sk-…`, `ghp_…`/`gho_…`/
 * `ghu_…`/`ghs_…`/`ghr_…`, `github_pat_…`, `xox[abprs]-…`, `AKIA…`/`ASIA…`, JWTs, `Bearer …`,
 * `Basic …`, `glpat-…`, `AIza…`, PEM private keys, …) anywhere in it.
 */
export function isCredentialValue(value: string): boolean {
  for (const pattern of VALUE_PATTERNS) {
    if (pattern.test(value)) return true;
  }
  return false;
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
