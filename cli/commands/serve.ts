/** `svckit serve`: the reference stack (see src/server/main.ts). */
import { Command } from 'commander';
import { SETTINGS, type Setting } from '../../src/config.ts';

const WIDTH = 100;

/** `text` wrapped at {@link WIDTH} columns, every line indented by `indent`. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, indent + line];
}

/** One variable of the table: its name, type, default and whether it is secret, then what it does. */
function describe(name: string, setting: Setting<unknown>): string[] {
  const facts = [
    setting.type,
    setting.default === undefined ? 'no default' : `default ${setting.default}`,
    ...(setting.secret ? ['secret'] : []),
  ];
  return [`  ${name}  (${facts.join('; ')})`, ...wrap(`${setting.description} [${setting.implements}]`, '      ')];
}

/** The settings part of `svckit serve --help`, every variable of the settings table (D-163). */
export function settingsHelp(): string {
  const rows = Object.entries(SETTINGS) as [string, Setting<unknown>][];
  const served = rows.filter(([, s]) => s.readBy.includes('svckit serve'));
  const clients = rows.filter(([, s]) => !s.readBy.includes('svckit serve'));
  return [
    '',
    'Settings (environment variables; unset or empty takes the default, but an empty SVC_FX_RATES is an empty table;',
    'a bad value stops the start with exit code 2):',
    ...served.flatMap(([name, s]) => describe(name, s)),
    '',
    'Read by the client tools, not by serve:',
    ...clients.flatMap(([name, s]) => [
      ...describe(name, s).slice(0, 1),
      ...wrap(`read by ${s.readBy.join(', ')}: ${s.description} [${s.implements}]`, '      '),
    ]),
    '',
    'docs/settings.md describes every setting.',
  ].join('\n');
}

/** Builds the `serve` sub-command. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Start the reference stack: Anvil, PGlite and the three HTTPS origins with hybrid post-quantum TLS.')
    .addHelpText('after', settingsHelp())
    .action(async () => {
      // Loaded when the command runs: the server takes seconds to import, which `svckit --help` should not.
      const { serve } = await import('../../src/server/main.ts');
      const { buildEvidenceAtStart } = await import('../../conformance/evidence/at-start.ts');
      const path = await import('node:path');
      // D-153: a missing or stale evidence document is built in the background once the server is ready.
      await serve({
        onReady: (config) =>
          config.evidenceAtStart
            ? buildEvidenceAtStart({ evidenceDir: path.join(config.dataDir, 'evidence') })
            : undefined,
      });
    });
}
