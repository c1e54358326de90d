// ACVP HMAC-SHA2-256 (FIPS 198-1) and AES-GCM (SP 800-38D). Lengths in the vectors are in bits.
// AES-GCM groups of every key length are run: the key length is not a parameter set of the
// evidence document's scope, and the code under test (OpenSSL's GCM) is the same for 128, 192 and 256 bits.
import { createCipheriv, createDecipheriv, createHmac, type CipherGCMTypes } from 'node:crypto';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { NotOffered } from '../implementations.ts';
import { type JsonObject, upperHex } from '../vectors.ts';
import { compareResponse, field, hexField, type AcvpSetHandler } from './handler.ts';

/** HMAC-SHA2-256: key, msg → mac truncated to macLen bits. */
export const hmacSha256Handler: AcvpSetHandler = {
  label: 'HMAC-SHA2-256',
  matches: (h) => h.algorithm === 'HMAC-SHA2-256',
  describeGroup: (g) => `HMAC-SHA2-256 ${String(g.testType ?? '')}`.trim(),
  run(c, impl) {
    const msgLen = Number(field(c, 'msgLen') ?? 0);
    const keyLen = Number(field(c, 'keyLen') ?? 0);
    const macLen = Number(field(c, 'macLen'));
    if (msgLen % 8 !== 0 || keyLen % 8 !== 0)
      throw new NotOffered('bit-oriented keys or messages: both implementations take whole bytes');
    if (!Number.isInteger(macLen) || macLen % 8 !== 0 || macLen <= 0 || macLen > 256)
      throw new Error(`macLen ${String(field(c, 'macLen'))} is not a byte count up to 256 bits`);
    const key = hexField(c, 'key');
    const msg = hexField(c, 'msg');
    const full =
      impl === 'openssl' ? new Uint8Array(createHmac('sha256', key).update(msg).digest()) : hmac(sha256, key, msg);
    return compareResponse(c, { tcId: c.test.tcId, mac: upperHex(full.subarray(0, macLen / 8)) }, ['mac']);
  },
};

/** AES-GCM: encrypt (pt → ct, tag) and decrypt (ct, tag → pt, or testPassed false), external IV. */
export const aesGcmHandler: AcvpSetHandler = {
  label: 'AES-GCM',
  matches: (h) => h.algorithm === 'ACVP-AES-GCM',
  describeGroup: (g) =>
    `AES-${String(g.keyLen)}-GCM ${String(g.direction)} iv ${String(g.ivLen)} tag ${String(g.tagLen)} pt ${String(g.payloadLen)} aad ${String(g.aadLen)}`,
  run(c, impl) {
    if (impl !== 'openssl')
      throw new NotOffered(
        'AES-GCM is not offered by the noble backend (@noble/post-quantum and @noble/hashes have no AES)',
      );
    if (c.group.ivGen !== undefined && c.group.ivGen !== 'external') {
      throw new NotOffered(
        `IV generation "${String(c.group.ivGen)}": the runner checks known answers only, which need the IV given`,
      );
    }
    for (const name of ['payloadLen', 'aadLen', 'ivLen'] as const) {
      if (Number(c.group[name] ?? 0) % 8 !== 0)
        throw new NotOffered(`${name} ${String(c.group[name])} is not whole bytes: node:crypto takes whole bytes`);
    }
    const cipher = `aes-${Number(c.group.keyLen)}-gcm` as CipherGCMTypes;
    const tagBytes = Number(c.group.tagLen) / 8;
    const key = hexField(c, 'key');
    const iv = hexField(c, 'iv');
    const aad = hexField(c, 'aad');
    if (c.group.direction === 'encrypt') {
      const enc = createCipheriv(cipher, key, iv, { authTagLength: tagBytes });
      enc.setAAD(aad);
      const ct = Buffer.concat([enc.update(hexField(c, 'pt')), enc.final()]);
      return compareResponse(c, { tcId: c.test.tcId, ct: upperHex(ct), tag: upperHex(enc.getAuthTag()) }, [
        'ct',
        'tag',
      ]);
    }
    const dec = createDecipheriv(cipher, key, iv, { authTagLength: tagBytes });
    dec.setAAD(aad);
    dec.setAuthTag(hexField(c, 'tag'));
    let response: JsonObject;
    try {
      response = { tcId: c.test.tcId, pt: upperHex(Buffer.concat([dec.update(hexField(c, 'ct')), dec.final()])) };
    } catch {
      response = { tcId: c.test.tcId, testPassed: false };
    }
    // A case that must fail expects testPassed false; one that must pass expects pt. internalProjection
    // also carries the plaintext of a case that must fail, and testPassed true on one that must pass,
    // which an ACVP response leaves out.
    return compareResponse(c, response, c.expected?.testPassed === false ? ['testPassed'] : ['pt']);
  },
};
