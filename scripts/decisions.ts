/**
 * The decision register (specs/DECISIONS.md) and the spec elements that carry `x-decision`.
 * `npx tsx scripts/decisions.ts --write` rewrites each entry's "Carried by" line from the specs;
 * `test/specs/decisions.test.ts` fails when the register and the specs disagree.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadSpec } from './generate/spec-loader.ts';
import { SPECS_DIR } from '../src/paths.ts';

/** One numbered entry of the register. */
export type DecisionEntry = { id: string; title: string; body: string };

const REGISTER = path.join(SPECS_DIR, 'DECISIONS.md');

/** Parses the entries `### D-0nn Title` of specs/DECISIONS.md. */
export function readDecisions(text = readFileSync(REGISTER, 'utf8')): DecisionEntry[] {
  const parts = text.split(/^### (?=D-\d{3} )/m).slice(1);
  return parts.map((part) => {
    const [heading = '', ...rest] = part.split('\n');
    const [id = '', ...title] = heading.split(' ');
    return { id, title: title.join(' '), body: rest.join('\n') };
  });
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every `x-decision` in specs/: decision id → sorted list of `file#/json/pointer` carrying it. */
export function decisionCarriers(): Map<string, string[]> {
  const carriers = new Map<string, string[]>();
  const files = readdirSync(SPECS_DIR)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort();
  for (const file of files) {
    const walk = (node: unknown, pointer: string) => {
      if (Array.isArray(node)) {
        for (const [i, child] of node.entries()) walk(child, `${pointer}/${i}`);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'x-decision') {
          for (const id of [value].flat() as string[]) {
            carriers.set(id, [...(carriers.get(id) ?? []), `${file}#${pointer || '/'}`]);
          }
        } else {
          walk(value, `${pointer}/${escapePointer(key)}`);
        }
      }
    };
    walk(loadSpec(file), '');
  }
  for (const list of carriers.values()) list.sort();
  return carriers;
}

/**
 * The "Carried by" line for an entry, from the specs; undefined when no spec element carries it (such an
 * entry is decided in code only and its line says `code only: <where>`, written by hand).
 */
export function carriedByLine(id: string, carriers = decisionCarriers()): string | undefined {
  const list = carriers.get(id) ?? [];
  return list.length ? `- **Carried by:** ${list.map((c) => `\`${c}\``).join(', ')}` : undefined;
}

/** Rewrites every entry's "Carried by" line from the specs. */
export function syncCarriedBy(): void {
  const carriers = decisionCarriers();
  const text = readFileSync(REGISTER, 'utf8');
  const updated = text.replace(
    /^### (D-\d{3}) [^\n]*\n[\s\S]*?^- \*\*Carried by:\*\*[^\n]*(\n {2}[^\n]*)*/gm,
    (block, id: string) => {
      const line = carriedByLine(id, carriers);
      return line ? block.replace(/^- \*\*Carried by:\*\*[^\n]*(\n {2}[^\n]*)*/m, line) : block;
    },
  );
  writeFileSync(REGISTER, updated);
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write')) syncCarriedBy();
