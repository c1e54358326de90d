/**
 * The integrator helpers, `svckit/client` (package.json `exports`): the SVC-MLDSA request signer for the
 * institutional API (spec "Option 2"), the webhook verifier (spec "Signature rules"; also alone as
 * `svckit/webhooks/verifier`) and the wallet session login (specs/wallet.openapi.yaml). The whole
 * wallet library is `svckit/wallet`.
 */
export * from './mldsa-signer.ts';
export * from './webhook-verifier.ts';
export * from './wallet/session.ts';
