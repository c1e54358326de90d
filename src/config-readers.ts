/**
 * How each kind of setting is read from the environment and validated (D-163). A reader knows its type and
 * default for the documentation; `read` throws a ConfigError naming the variable, which `svckit serve`
 * prints before exiting with code 2. A value that may hold a credential is never repeated in a message (D-139).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.ts';
import type { FeeCollector, HistorySourceConfig, SourceKind } from './config.ts';
import { parseFxRates, type FxTable } from './ledger/payments/fx.ts';
import { addressKind, checksumOk } from './server/wallet/addresses.ts';

/** The environment a loader reads: variable name to value. */
export type Env = Record<string, string | undefined>;

/** One kind of setting: its documented type and default, and how it is read. */
export type Reader<T> = {
  /** How the value is written, for the documentation. */
  type: string;
  /** The value that applies when the variable is unset or empty, written as the variable would be; undefined when none does. */
  default: string | undefined;
  /** Reads and validates the variable `name` of `env`; throws ConfigError naming it. */
  read(env: Env, name: string): T;
};

/** Text passed on as given; unset or empty gives `fallback`. */
export function text(): Reader<string | undefined>;
export function text(fallback: string): Reader<string>;
export function text(fallback?: string): Reader<string | undefined> {
  return { type: 'text', default: fallback, read: (env, name) => env[name] || fallback };
}

/** A folder, resolved against the working directory. */
export const directory = (fallback: string): Reader<string> => ({
  type: 'path',
  default: fallback,
  read: (env, name) => path.resolve(env[name] || fallback),
});

/** A host name or IP address to listen on. */
export const host = (fallback: string): Reader<string> => ({
  type: 'host name or IP address',
  default: fallback,
  read(env, name) {
    const raw = env[name] || fallback;
    if (!/^[A-Za-z0-9.:-]+$/.test(raw))
      throw new ConfigError(`${name} expected a host name or IP address, got "${raw}"`);
    return raw;
  },
});

/** A TCP port; 0 asks for an ephemeral one. */
export const port = (fallback: number): Reader<number> => ({
  type: 'port 0 to 65535, 0 = ephemeral',
  default: String(fallback),
  read(env, name) {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) > 65535)
      throw new ConfigError(`${name} expected a port number from 0 to 65535 (0 = ephemeral), got "${raw}"`);
    return Number(raw);
  },
});

/** A TCP port that turns something on; unset or empty leaves it off, 0 asks for an ephemeral one. */
export const optionalPort = (): Reader<number | undefined> => ({
  type: 'port 0 to 65535, 0 = ephemeral; unset = off',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    return raw === undefined || raw === '' ? undefined : port(0).read(env, name);
  },
});

/** A whole number from `min` to `max`. */
export const integer = (fallback: number, min: number, max: number): Reader<number> => ({
  type: `whole number ${min} to ${max}`,
  default: String(fallback),
  read(env, name) {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
      throw new ConfigError(`${name} expected a whole number from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  },
});

/** A rate in requests (or attempts) per second, up to 1,000,000; 0 lifts the limit. */
export const perSecond = (fallback: number): Reader<number> => integer(fallback, 0, 1_000_000);

/** A switch: true, false, 1 or 0. */
export const flag = (fallback: boolean): Reader<boolean> => ({
  type: 'true, false, 1 or 0',
  default: String(fallback),
  read(env, name) {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'false' || raw === '0') return false;
    if (raw === 'true' || raw === '1') return true;
    throw new ConfigError(`${name} expected true, false, 1 or 0, got "${raw}"`);
  },
});

/** Checks one URL of the given protocols; D-139: the message never repeats it, as it may hold credentials. */
function checkUrl(raw: string, name: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} expected a URL, got a value that does not parse as one`);
  }
  if (!protocols.includes(parsed.protocol))
    throw new ConfigError(`${name} expected a ${protocols.join(' or ')} URL, got a ${parsed.protocol} URL`);
  return raw;
}

const urlType = (protocols: string[]) => `${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL`;

/** A URL of one of `protocols`; unset means none. */
export const url = (protocols: string[]): Reader<string | undefined> => ({
  type: urlType(protocols),
  default: undefined,
  read: (env, name) => (env[name] ? checkUrl(env[name], name, protocols) : undefined),
});

/** Comma-separated URLs of one of `protocols`; a bad one is named by its index, e.g. `NAME[1]`. */
export const urlList = (protocols: string[]): Reader<string[]> => ({
  type: `comma-separated ${urlType(protocols)}s`,
  default: undefined,
  read: (env, name) =>
    (env[name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((raw, i) => checkUrl(raw, `${name}[${i}]`, protocols)),
});

/** An https origin (no path, no query), returned without the trailing slash. */
export const httpsOrigin = (): Reader<string | undefined> => ({
  type: 'https origin',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    if (!raw) return undefined;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol !== 'https:' || parsed.pathname !== '/' || parsed.search) throw new Error();
      return parsed.origin;
    } catch {
      throw new ConfigError(`${name} expected an https origin such as https://wallet.example.com, got "${raw}"`);
    }
  },
});

/** A file that must exist, resolved against the working directory; unset means none. */
export const file = (): Reader<string | undefined> => ({
  type: 'path of a file',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const resolved = path.resolve(raw);
    if (!existsSync(resolved)) throw new ConfigError(`${name} expected a readable file, got "${raw}" (not found)`);
    return resolved;
  },
});

/** A bank identifier code (ISO 9362: 8 or 11 characters). */
export const bic = (fallback: string): Reader<string> => ({
  type: 'BIC (8 or 11 characters)',
  default: fallback,
  read(env, name) {
    const raw = env[name] || fallback;
    if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(raw))
      throw new ConfigError(`${name} expected a bank identifier code such as SVCKGB2LXXX, got "${raw}"`);
    return raw;
  },
});

/** A three-letter upper-case currency code. */
export const currency = (fallback: string): Reader<string> => ({
  type: 'currency code (3 upper-case letters)',
  default: fallback,
  read(env, name) {
    const raw = env[name] || fallback;
    if (!/^[A-Z]{3}$/.test(raw))
      throw new ConfigError(`${name} expected a three-letter upper-case currency code such as SVC, got "${raw}"`);
    return raw;
  },
});

/** The FX table `CCY=rate,...` (D-053); an empty value is an empty table, only an unset one gives `fallback`. */
export const fxRates = (fallback: string): Reader<FxTable> => ({
  type: 'CCY=rate,... (native units per unit)',
  default: fallback,
  read(env, name) {
    try {
      return parseFxRates(env[name] ?? fallback);
    } catch (error) {
      throw new ConfigError(`${name} ${(error as Error).message}`);
    }
  },
});

/** An smtp:// or smtps:// URL with a host; the message never repeats it (it may hold credentials, D-139). */
export const smtpUrl = (): Reader<string | undefined> => ({
  type: 'smtp or smtps URL',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    if (!raw) return undefined;
    checkUrl(raw, name, ['smtp:', 'smtps:']);
    if (!new URL(raw).hostname) throw new ConfigError(`${name} expected an smtp or smtps URL with a host`);
    return raw;
  },
});

/** A sender mailbox: `name <local@domain>` or `local@domain`, on one line. */
export const mailbox = (fallback: string): Reader<string> => ({
  type: 'mailbox (name <local@domain>)',
  default: fallback,
  read(env, name) {
    const raw = env[name] || fallback;
    if (!/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw))
      throw new ConfigError(`${name} expected a mailbox such as svckit <no-reply@example.com>, got "${raw}"`);
    return raw;
  },
});

/** A 32-byte key in base64url (43 characters); the message never repeats it. */
export const key32 = (): Reader<string | undefined> => ({
  type: '32 bytes, base64url',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (!/^[A-Za-z0-9_-]{43}$/.test(raw))
      throw new ConfigError(`${name} expected 32 bytes in base64url (43 characters)`);
    return raw;
  },
});

const CHAIN_ID = /^(bitcoin|tron|[1-9][0-9]{0,15})$/;

/** `chainId=address,...`: one fee collector per chain, each an address of its chain (D-014, D-088). */
export const feeCollectors = (): Reader<FeeCollector[]> => ({
  type: 'chainId=address,...',
  default: undefined,
  read(env, name) {
    const seen = new Set<string>();
    return (env[name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry, i) => {
        const [chainId = '', address = ''] = entry.split('=');
        const kind = addressKind(address);
        const fits = kind === 'evm' ? /^[1-9]/.test(chainId) && checksumOk(address) : kind === chainId;
        if (!CHAIN_ID.test(chainId) || !fits || seen.has(chainId)) {
          throw new ConfigError(
            `${name}[${i}] expected chainId=address (one per chain, the address of that chain), got "${entry}"`,
          );
        }
        seen.add(chainId);
        return { chainId, address };
      });
  },
});

const KINDS: Record<SourceKind, (chainId: string) => boolean> = {
  esplora: (c) => c === 'bitcoin',
  trongrid: (c) => c === 'tron',
  etherscan: (c) => /^[1-9]/.test(c) && c !== '1111111',
};

/** A JSON array of history sources `{chainId, kind, url, name?}` of chains other than the native one (D-087). */
export const historySources = (): Reader<HistorySourceConfig[]> => ({
  type: 'JSON array of {chainId, kind, url, name?}',
  default: undefined,
  read(env, name) {
    const raw = env[name];
    if (!raw) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${name} expected a JSON array of {chainId, kind, url, name?}, got "${raw.slice(0, 80)}"`);
    }
    if (!Array.isArray(parsed)) throw new ConfigError(`${name} expected a JSON array of {chainId, kind, url, name?}`);
    return parsed.map((item: Record<string, unknown>, i) => historySource(item, `${name}[${i}]`));
  },
});

function historySource(item: Record<string, unknown>, where: string): HistorySourceConfig {
  const { chainId, kind, url, name } = item ?? {};
  if (typeof chainId !== 'string' || !CHAIN_ID.test(chainId))
    throw new ConfigError(`${where}.chainId expected bitcoin, tron or an EVM chain id, got ${JSON.stringify(chainId)}`);
  if (typeof kind !== 'string' || !(kind in KINDS) || !KINDS[kind as SourceKind](chainId)) {
    throw new ConfigError(
      `${where}.kind expected esplora (bitcoin), trongrid (tron) or etherscan (an EVM chain other than 1111111), got ${JSON.stringify(kind)} for ${chainId}`,
    );
  }
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(String(url));
    if (!['http:', 'https:'].includes(parsedUrl.protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${where}.url expected an http or https URL, got ${JSON.stringify(url)}`);
  }
  if (name !== undefined && (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name))) {
    throw new ConfigError(
      `${where}.name expected lower-case letters, digits, ".", "_" or "-", got ${JSON.stringify(name)}`,
    );
  }
  return {
    chainId,
    kind: kind as SourceKind,
    url: parsedUrl.href.replace(/\/$/, ''),
    name: (name as string | undefined) ?? `${kind}-${parsedUrl.hostname}`,
  };
}
