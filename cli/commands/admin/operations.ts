/**
 * Which `svckit admin` sub-command carries each operation of the admin contract (specs/admin.openapi.yaml,
 * by operationId). test/admin/cli-coverage.test.ts reads the contract's operationIds and fails when one is
 * missing here or names a command that does not exist.
 */

/** operationId → the words after `svckit admin`. */
export const ADMIN_OPERATIONS: Readonly<Record<string, string>> = {
  adminGetHealth: 'health',
  adminCreateApiKey: 'api-keys create',
  adminListApiKeys: 'api-keys list',
  adminUpdateApiKey: 'api-keys update',
  adminRevokeApiKey: 'api-keys revoke',
  adminRegisterMldsaKey: 'mldsa-keys register',
  adminListMldsaKeys: 'mldsa-keys list',
  adminUpdateMldsaKey: 'mldsa-keys update',
  adminRevokeMldsaKey: 'mldsa-keys revoke',
  adminCreateAccount: 'accounts create',
  adminListAccounts: 'accounts list',
  adminGetAccount: 'accounts get',
  adminUpdateAccount: 'accounts update',
  adminFundAccount: 'accounts fund',
  adminListChainAccounts: 'chain-accounts list',
  adminAddChainAccount: 'chain-accounts add',
  adminRemoveChainAccount: 'chain-accounts remove',
  adminRotateKek: 'kek rotate',
  adminRotateWalletKey: 'wallet-keys rotate',
  adminRotateAdminToken: 'token rotate',
  adminIssueMetricsToken: 'metrics-token issue',
  adminCreateWebhookEndpoint: 'webhooks endpoints create',
  adminListWebhookEndpoints: 'webhooks endpoints list',
  adminGetWebhookEndpoint: 'webhooks endpoints get',
  adminUpdateWebhookEndpoint: 'webhooks endpoints update',
  adminDeleteWebhookEndpoint: 'webhooks endpoints delete',
  adminSetWebhookSecret: 'webhooks secret',
  adminListWebhookDeliveries: 'webhooks deliveries list',
  adminGetWebhookDelivery: 'webhooks deliveries get',
  adminRedeliverWebhook: 'webhooks redeliver',
  adminReturnPayment: 'payments return',
  adminProposeValidatorVote: 'qbft votes propose',
  adminListValidatorVotes: 'qbft votes list',
  adminListValidators: 'qbft validators',
  adminGetEvidenceStatus: 'evidence',
};
