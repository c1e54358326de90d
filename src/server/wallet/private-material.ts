/**
 * spec rule 1: "Private keys and recovery phrases are generated and held by the client. They are never sent
 * to the service. Registration sends only public values." Every JSON body of the wallet origin is searched
 * for a field named like private material (D-030: `mnemonic`, `seed`, `privateKey`, `secretKey`, `xprv`...)
 * or a value that is one (an extended private key, a BIP-39 phrase); either is a 400 saying so.
 */
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { badRequest } from '../http/errors.ts';

const PRIVATE_NAME = /(mnemonic|seed|private|priv|secret|xprv|wif|passphrase|password|entropy|decapsulation)/;
const EXTENDED_PRIVATE_KEY = /^[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100,}$/;

const isPhrase = (value: string) => {
  const words = value.trim().split(/\s+/);
  return [12, 15, 18, 21, 24].includes(words.length) && validateMnemonic(words.join(' ').toLowerCase(), wordlist);
};

/** Throws 400 PRIVATE_MATERIAL_REFUSED when `body` names or carries private key material anywhere. */
export function refusePrivateMaterial(body: unknown, at = ''): void {
  if (Array.isArray(body)) return body.forEach((item, i) => refusePrivateMaterial(item, `${at}[${i}]`));
  if (typeof body === 'string') {
    if (EXTENDED_PRIVATE_KEY.test(body) || isPhrase(body)) {
      throw badRequest(`"${at || 'body'}" carries private key material (an extended private key or a recovery phrase), which is never accepted: send only public values`, 'PRIVATE_MATERIAL_REFUSED');
    }
    return;
  }
  if (body === null || typeof body !== 'object') return;
  for (const [key, value] of Object.entries(body)) {
    const field = at ? `${at}.${key}` : key;
    if (PRIVATE_NAME.test(key.toLowerCase().replace(/[_-]/g, ''))) {
      throw badRequest(`"${field}" is private key material and is never accepted: registration sends only public values`, 'PRIVATE_MATERIAL_REFUSED');
    }
    refusePrivateMaterial(value, field);
  }
}
