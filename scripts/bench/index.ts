/**
 * `npm run bench -- <name>`: runs one benchmark from scripts/bench/<name>.ts and prints its figures.
 * Benchmarks are never timed unit tests (DESIGN.md house rule 11).
 */
import { readdirSync } from 'node:fs';

const available = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();
const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(
    `usage: npm run bench -- <${available.join('|') || 'none yet'}>${name ? ` (no benchmark "${name}")` : ''}`,
  );
  process.exit(2);
}
await import(`./${name}.ts`);
