// A sender for tests that drive a bare Anvil (no gateway, no allow-list): a fresh key whose address the test
// credits on the node itself. The embedded chain has no development accounts (D-151), and no published key
// is ever funded.
import { toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Upstream } from '../../src/node/upstream.ts';

/** A fresh account credited with 1,000 units on the node behind `upstream` (anvil_setBalance). */
export async function fundedSender(upstream: Upstream): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await upstream.call('anvil_setBalance', [account.address, toHex(1000n * 10n ** 18n) as Hex]);
  return account;
}
