/**
 * The integrator helpers, `@svckit/sdk/client` (scripts/sdk-modules.ts, D-229): the SVC-MLDSA request signer for the
 * institutional API (spec "Option 2"), the webhook verifier (spec "Signature rules"; also alone as
 * `@svckit/sdk/webhooks/verifier`) and the wallet session login (specs/wallet.openapi.yaml). The whole
 * wallet library is `@svckit/sdk/wallet-library`.
 */
export * from './mldsa-signer.ts';
export * from './webhook-verifier.ts';
export * from './wallet/session.ts';
