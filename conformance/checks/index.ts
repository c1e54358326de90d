// The registry of every check (house rule 7, D-232): the hand-written ones, one folder per surface, and those
// generated from the contracts.
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
import { GENERATED_CHECKS } from '../engine/core/registry.ts';

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
  // D-232: the checks generated from the contracts, in the same registry; the engine applies their judges.
  for (const check of GENERATED_CHECKS) catalogue.register(check);
  return catalogue;
}
