/**
 * spec rule 1: "Private keys and recovery phrases are generated and held by the client. They are never sent
 * to the service. Registration sends only public values." Every JSON body of the wallet origin is searched
 * for a field named like private material (D-030: `mnemonic`, `seed`, `privateKey`, `secretKey`, `xprv`...)
 * or a value that is one (an extended private key, a BIP-39 phrase); either is a 400 saying so.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { MAX_JSON_DEPTH, tooDeepMessage } from '../http/body-depth.ts';
import { ErrorCode, RestError } from '../http/errors.ts';

const PRIVATE_NAME = /(mnemonic|seed|private|priv|secret|xprv|wif|passphrase|password|entropy|decapsulation)/;
const EXTENDED_PRIVATE_KEY = /^[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100,}$/;

const isPhrase = (value: string) => {
  const words = value.trim().split(/\s+/);
  return [12, 15, 18, 21, 24].includes(words.length) && validateMnemonic(words.join(' ').toLowerCase(), wordlist);
};

/**
 * Throws 400 PRIVATE_MATERIAL_REFUSED when `body` names or carries private key material anywhere. The walk
 * keeps its own stack (no recursion) and refuses anything deeper than D-144's limit, so a body that passed
 * no parser guard still cannot exhaust the call stack.
 */
export function refusePrivateMaterial(body: unknown, limit = MAX_JSON_DEPTH): void {
  const pending: { value: unknown; at: string; depth: number }[] = [{ value: body, at: '', depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, at, depth } = next;
    if (typeof value === 'string') {
      if (EXTENDED_PRIVATE_KEY.test(value) || isPhrase(value)) {
        throw new RestError(
          ErrorCode.PRIVATE_MATERIAL_REFUSED,
          `"${at || 'body'}" carries private key material (an extended private key or a recovery phrase), which is never accepted: send only public values`,
        );
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limit) throw new RestError(ErrorCode.BODY_TOO_DEEP, tooDeepMessage(limit));
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) pending.push({ value: item, at: `${at}[${i}]`, depth: depth + 1 });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const field = at ? `${at}.${key}` : key;
      if (PRIVATE_NAME.test(key.toLowerCase().replace(/[_-]/g, ''))) {
        throw new RestError(
          ErrorCode.PRIVATE_MATERIAL_REFUSED,
          `"${field}" is private key material and is never accepted: registration sends only public values`,
        );
      }
      pending.push({ value: item, at: field, depth: depth + 1 });
    }
  }
}
