// The catalogue of every check (house rule 7). Later issues add their checks here.
import { Catalogue, type CatalogueOptions } from '../catalogue.ts';
import { specExampleChecks } from './specs.ts';

/** Builds the full catalogue; throws if any check is invalid (bad id, source or severity). */
export function buildCatalogue(options: CatalogueOptions = {}): Catalogue {
  const catalogue = new Catalogue(options);
  for (const check of specExampleChecks()) catalogue.register(check);
  return catalogue;
}
