// The catalogue of every check (house rule 7), one folder per surface.
import { Catalogue, type CatalogueOptions } from '../catalogue.ts';
import { chainChecks } from './chain/index.ts';
import { evidenceChecks } from './evidence/index.ts';
import { explorerChecks } from './explorer/index.ts';
import { explorerValidatorSizeChecks } from './explorer/validator-sizes.ts';
import { institutionalChecks } from './institutional/index.ts';
import { specExampleChecks } from './spec-examples/index.ts';
import { transportChecks } from './transport/index.ts';
import { walletChecks } from './wallet/index.ts';
import { webhookChecks } from './webhooks/index.ts';

/** Builds the full catalogue; throws if any check is invalid (bad id, source or severity). */
export function buildCatalogue(options: CatalogueOptions = {}): Catalogue {
  const catalogue = new Catalogue(options);
  for (const check of specExampleChecks()) catalogue.register(check);
  for (const check of chainChecks()) catalogue.register(check);
  for (const check of transportChecks()) catalogue.register(check);
  for (const check of explorerChecks()) catalogue.register(check);
  // Apart from explorerChecks(): these need the admin API to vote the validator set (D-173).
  for (const check of explorerValidatorSizeChecks()) catalogue.register(check);
  for (const check of institutionalChecks()) catalogue.register(check);
  for (const check of walletChecks()) catalogue.register(check);
  for (const check of webhookChecks()) catalogue.register(check);
  for (const check of evidenceChecks()) catalogue.register(check);
  return catalogue;
}
