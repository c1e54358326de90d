/**
 * Secret options of the client commands (D-222): each secret `--x <value>` also comes from `--x-file <file>`
 * (`-` reads stdin) or an environment variable, because a command line is readable by every local user
 * (/proc/<pid>/cmdline, `ps`). The flag stays for compatibility, and its help says so.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';

/** One secret option: its flag (without `--`), the environment variable, and what it holds (for help and errors). */
export type SecretOption = { flag: string; env: string; what: string };

/** The most a secret file may hold; a secret is short, and a large file is a mistake (e.g. a key store). */
const MAX_SECRET_BYTES = 16 * 1024;

/** The warning every secret flag's help carries. */
const VISIBLE = 'visible to other local users in the process list';

/** Adds `--<flag> <value>` and `--<flag>-file <file>` to `command`, with help naming the variable. */
export function secretOption(command: Command, secret: SecretOption, valueName = 'value'): Command {
  return command
    .option(
      `--${secret.flag} <${valueName}>`,
      `${secret.what} (never printed; ${VISIBLE}: prefer --${secret.flag}-file or ${secret.env})`,
    )
    .option(`--${secret.flag}-file <file>`, `file holding ${secret.what}; - reads stdin (default: ${secret.env})`);
}

/** The option's property name as commander gives it: `webhook-secret-file` → `webhookSecretFile`. */
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The secret of `secret` from `options`: the flag, else the file, else the environment variable (`useEnv`
 * false leaves the variable alone, for a secret whose feature was not asked for). Giving both the flag and the
 * file is an error; an error never contains the secret.
 */
export function readSecret(
  options: Record<string, unknown>,
  secret: SecretOption,
  env: NodeJS.ProcessEnv = process.env,
  useEnv = true,
): string | undefined {
  const value = options[camel(secret.flag)] as string | undefined;
  const file = options[camel(`${secret.flag}-file`)] as string | undefined;
  if (value !== undefined && file !== undefined)
    throw new Error(`give either "--${secret.flag}" or "--${secret.flag}-file", not both`);
  if (value !== undefined) return value;
  if (file !== undefined) return readSecretFile(`--${secret.flag}-file`, file);
  const fromEnv = useEnv ? env[secret.env] : undefined;
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** The contents of a secret file (or stdin for `-`) without its final line break; never echoed in errors. */
export function readSecretFile(flag: string, file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file === '-' ? 0 : file);
  } catch (error) {
    throw new Error(`"${flag}" cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  if (bytes.length > MAX_SECRET_BYTES)
    throw new Error(`"${flag}" ${file} holds ${bytes.length} bytes; a secret file holds at most ${MAX_SECRET_BYTES}`);
  const text = bytes.toString('utf8').replace(/\r?\n$/, '');
  if (text === '' || /[\r\n]/.test(text))
    throw new Error(
      `"${flag}" ${file} expected one line holding the secret, got ${text === '' ? 'nothing' : 'several lines'}`,
    );
  return text;
}
