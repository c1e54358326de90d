// The catalogue of every check (house rule 7). Later issues add their checks here.
import { Catalogue, type CatalogueOptions } from '../catalogue.ts';
import { explorerChecks } from './explorer.ts';
import { institutionalChecks } from './institutional.ts';
import { chainErrorChecks } from './chain-errors.ts';
import { chainMethodChecks } from './chain-methods.ts';
import { chainQbftChecks } from './chain-qbft.ts';
import { chainValueChecks } from './chain-values.ts';
import { specExampleChecks } from './specs.ts';
import { transportChecks } from './transport.ts';
import { walletChecks } from './wallet.ts';
import { webhookChecks } from './webhooks.ts';

/** Builds the full catalogue; throws if any check is invalid (bad id, source or severity). */
export function buildCatalogue(options: CatalogueOptions = {}): Catalogue {
  const catalogue = new Catalogue(options);
  for (const check of specExampleChecks()) catalogue.register(check);
  for (const check of [...chainValueChecks(), ...chainMethodChecks(), ...chainErrorChecks(), ...chainQbftChecks()]) catalogue.register(check);
  for (const check of transportChecks()) catalogue.register(check);
  for (const check of explorerChecks()) catalogue.register(check);
  for (const check of institutionalChecks()) catalogue.register(check);
  for (const check of walletChecks()) catalogue.register(check);
  for (const check of webhookChecks()) catalogue.register(check);
  return catalogue;
}
