// The wallet session API checks (surface E, ids `wallet.*`): sessions, tokens and records, registration,
// fees, downloads, history, sync and owner bindings. Each runs against any target with a wallet origin;
// checks that move the clock need the reference stack, owner bindings need the administrator token.
import type { Check } from '../../catalogue.ts';
import { walletAuthChecks } from './auth.ts';
import { walletBindingChecks } from './bindings.ts';
import { walletCrossTenantChecks } from './cross-tenant.ts';
import { walletFeatureChecks } from './features.ts';
import { walletTokenChecks } from './tokens.ts';

/** Every `wallet.*` check; the rate-limit check runs last so its 429s disturb no other check. */
export function walletChecks(): Check[] {
  const all = [
    ...walletAuthChecks(),
    ...walletTokenChecks(),
    ...walletFeatureChecks(),
    ...walletBindingChecks(),
    ...walletCrossTenantChecks(),
  ];
  return [
    ...all.filter((c) => c.id !== 'wallet.rate_limit.auth'),
    ...all.filter((c) => c.id === 'wallet.rate_limit.auth'),
  ];
}
