// The façade's backends one by one, for the conformance runners that test OpenSSL and @noble/post-quantum
// separately (ACVP, Wycheproof and the interoperability matrix). Everything else uses the façade
// (src/crypto/index.ts).
export * from './openssl-ml-dsa.ts';
export * from './openssl-ml-kem.ts';
export * from './noble-ml-dsa.ts';
export * from './noble-ml-kem.ts';
export * from './versions.ts';
export * from '../bytes.ts';
