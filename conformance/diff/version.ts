/**
 * The version rule (D-246, D-248): a contract with a breaking change must raise the major version of its
 * `info.version`; before 1.0.0, semver's rule for 0.x ("anything MAY change at any time") makes the missing bump
 * a warning. D-028: a contract that only adds (an operation, a channel, a message, an event type, a method, an
 * optional parameter) raises at least its minor version; a missing minor bump is a warning. A comparison of folders or references also needs an entry in the new side's CHANGES.md, a heading
 * that names the contract file and its new version.
 */
import { type Change, type Contract, isObject } from './model.ts';

/** The rules of this file, with their levels. */
export const VERSION_RULES = {
  'version.major_not_bumped': 'breaking',
  'version.major_not_bumped_0x': 'warning',
  'version.minor_not_bumped': 'warning',
  'version.invalid': 'breaking',
  'changes.entry_missing': 'breaking',
} as const;

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/** The rules that add something a client or receiver may start to use (D-028: a minor bump). */
const ADDITIONS: ReadonlySet<string> = new Set([
  'openapi.operation_added',
  'openapi.request_parameter_added',
  'asyncapi.channel_added',
  'asyncapi.message_added',
  'asyncapi.operation_added',
  'asyncapi.event_type_added',
  'openrpc.method_added',
  'openrpc.param_added',
]);

/** The contract's `info.version` (JSON Schema documents have none). */
export function infoVersion(contract: Contract): string | undefined {
  const info = isObject(contract.document) ? contract.document.info : undefined;
  return isObject(info) && typeof info.version === 'string' ? info.version : undefined;
}

/** The changes the version rule adds for one contract whose own changes are `changes`. */
export function versionChanges(
  before: Contract,
  after: Contract,
  changes: Change[],
  changelog: string | undefined,
  folder: boolean,
): Change[] {
  const breaking = changes.filter((change) => change.level === 'breaking').length;
  if (breaking === 0) return minorChanges(before, after, changes);
  const found: Change[] = [];
  const oldVersion = infoVersion(before);
  const newVersion = infoVersion(after);
  const base = { contract: after.name, oldPointer: '/info/version', newPointer: '/info/version', places: ['info'] };
  if (oldVersion !== undefined || newVersion !== undefined) {
    const a = SEMVER.exec(oldVersion ?? '');
    const b = SEMVER.exec(newVersion ?? '');
    if (!a || !b) {
      const bad = !a ? oldVersion : newVersion;
      found.push({
        ...base,
        rule: 'version.invalid',
        level: 'breaking',
        message: `info.version ${JSON.stringify(bad)} is not a semantic version, so ${breaking} breaking change(s) cannot be checked against it`,
      });
    } else if (Number(b[1]) <= Number(a[1])) {
      const zero = Number(b[1]) === 0;
      found.push({
        ...base,
        rule: zero ? 'version.major_not_bumped_0x' : 'version.major_not_bumped',
        level: zero ? 'warning' : 'breaking',
        message: `${breaking} breaking change(s) but info.version went from ${oldVersion} to ${newVersion}${zero ? ' (0.x: anything may change, but clients should be told)' : ': a client that trusts the major version breaks unwarned'}`,
      });
    }
  }
  if (folder) {
    const version = newVersion ?? '';
    const headings = (changelog ?? '').split('\n').filter((line) => /^#{1,6}\s/.test(line));
    if (!headings.some((line) => line.includes(after.name) && (version === '' || line.includes(version))))
      found.push({
        ...base,
        rule: 'changes.entry_missing',
        level: 'breaking',
        oldPointer: undefined,
        newPointer: undefined,
        places: ['CHANGES.md'],
        message: `${breaking} breaking change(s) and no CHANGES.md heading names ${after.name}${version ? ` ${version}` : ''}`,
      });
  }
  return found;
}

/** D-028: additions without a breaking change need at least a minor bump; nothing is said when a version is absent or not semver. */
function minorChanges(before: Contract, after: Contract, changes: Change[]): Change[] {
  const added = changes.filter((change) => ADDITIONS.has(change.rule)).length;
  if (added === 0) return [];
  const oldVersion = infoVersion(before);
  const newVersion = infoVersion(after);
  const a = SEMVER.exec(oldVersion ?? '');
  const b = SEMVER.exec(newVersion ?? '');
  if (!a || !b) return [];
  const raised = Number(b[1]) > Number(a[1]) || (Number(b[1]) === Number(a[1]) && Number(b[2]) > Number(a[2]));
  if (raised) return [];
  return [
    {
      contract: after.name,
      oldPointer: '/info/version',
      newPointer: '/info/version',
      places: ['info'],
      rule: 'version.minor_not_bumped',
      level: 'warning',
      message: `${added} addition(s) but info.version went from ${oldVersion} to ${newVersion}: a client that reads the minor version cannot tell the new operations are there`,
    },
  ];
}
