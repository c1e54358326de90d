// The two post-quantum parameter sets in scope: their FIPS sizes, and how messages name their keys.

/** FIPS 204 Table 2 sizes for ML-DSA-65, in bytes. */
export const ML_DSA_65_SIZES = Object.freeze({
  publicKey: 1952,
  secretKey: 4032,
  seed: 32,
  signature: 3309,
  maxContext: 255,
});

/** FIPS 203 Table 3 sizes for ML-KEM-768, in bytes. */
export const ML_KEM_768_SIZES = Object.freeze({
  publicKey: 1184,
  secretKey: 2400,
  seed: 64,
  ciphertext: 1088,
  sharedSecret: 32,
});

/** A parameter set as the key functions shared by ML-DSA-65 and ML-KEM-768 see it. */
export type ParameterSet = {
  /** node:crypto's asymmetric key type. */
  type: 'ml-dsa-65' | 'ml-kem-768';
  /** The parameter set's name in messages. */
  name: string;
  /** What the standard calls the secret key and the public key, in messages. */
  secretKeyName: string;
  publicKeyName: string;
  /** Sizes in bytes: the seed, the expanded secret key and the public key. */
  sizes: { seed: number; secretKey: number; publicKey: number };
};

/** ML-DSA-65 (FIPS 204): a secret key and a public key. */
export const ML_DSA_65: ParameterSet = {
  type: 'ml-dsa-65',
  name: 'ML-DSA-65',
  secretKeyName: 'secret key',
  publicKeyName: 'public key',
  sizes: ML_DSA_65_SIZES,
};

/** ML-KEM-768 (FIPS 203): a decapsulation key and an encapsulation key. */
export const ML_KEM_768: ParameterSet = {
  type: 'ml-kem-768',
  name: 'ML-KEM-768',
  secretKeyName: 'decapsulation key',
  publicKeyName: 'encapsulation key',
  sizes: ML_KEM_768_SIZES,
};
