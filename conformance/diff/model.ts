/**
 * What `svckit diff` reports (D-246): each change between two versions of a contract, with a stable rule id,
 * a level, the JSON pointer in the old and the new document, the places that use it, and one line from the
 * point of view of a client (requests, responses, JSON-RPC) or of a receiver (webhooks).
 */

/** How much a change matters to an existing client or receiver; the order is the order of `--fail-on`. */
export type Level = 'breaking' | 'warning' | 'info';

/** The levels, most severe first. */
export const LEVELS: readonly Level[] = ['breaking', 'warning', 'info'];

/** The four contract formats, detected per file. */
export type Format = 'openapi' | 'asyncapi' | 'openrpc' | 'jsonschema';

/** One change between two versions of one contract. */
export type Change = {
  rule: string;
  level: Level;
  /** The contract's file name (relative to the compared folder). */
  contract: string;
  /** Where the change is in the old document (absent for something added). */
  oldPointer?: string;
  /** Where the change is in the new document (absent for something removed). */
  newPointer?: string;
  /** The operations, messages or methods that reach the changed element through their $refs. */
  places: string[];
  message: string;
};

/** A parsed contract: its name, its format and its document. */
export type Contract = { name: string; format: Format; document: unknown };

/** A JSON object, as read from YAML or JSON. */
export type Json = Record<string, unknown>;

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value of a document as text: strings as they are, anything else as JSON (never through its own toString). */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

/** RFC 6901: one reference token. */
export function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** RFC 6901: a pointer with tokens appended. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((token) => `/${escapeToken(String(token))}`).join('');
}

/** A change as a rule emits it, before the contract name is known. */
export type Found = Omit<Change, 'contract' | 'places'> & { place: string };

/**
 * Collects the changes of one contract. A change inside a shared component reached from several places is
 * kept once, naming every place (same rule, same pointers, same message).
 */
export class Changes {
  readonly #byKey = new Map<string, Change>();
  constructor(readonly contract: string) {}

  /** Records a change reached from `found.place`. */
  add(found: Found): void {
    const key = [found.rule, found.oldPointer ?? '', found.newPointer ?? '', found.message].join('\u0000');
    const known = this.#byKey.get(key);
    if (known) {
      if (!known.places.includes(found.place)) known.places.push(found.place);
      return;
    }
    const { place, ...rest } = found;
    this.#byKey.set(key, { ...rest, contract: this.contract, places: [place] });
  }

  /** The changes, in the order they were first found. */
  list(): Change[] {
    return [...this.#byKey.values()];
  }
}
