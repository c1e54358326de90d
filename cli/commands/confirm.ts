/** A yes/no question on the terminal, for commands that act on something the operator should see first. */
import readline from 'node:readline';

/** What the operator answered; `no terminal` when stdin is not one (a pipe, a file, a CI job). */
export type Confirmation = 'yes' | 'no' | 'no terminal';

/**
 * Asks `question` on `output` and reads one line from `input`: `y` or `yes` (any case) is yes; anything else,
 * or the end of input, is no. Without a terminal on `input` nothing is asked.
 */
export function confirm(
  question: string,
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<Confirmation> {
  if (!input.isTTY) return Promise.resolve('no terminal');
  const rl = readline.createInterface({ input, output, terminal: true });
  return new Promise<Confirmation>((resolve) => {
    rl.once('close', () => resolve('no'));
    rl.question(question, (answer) => resolve(/^y(es)?$/i.test(answer.trim()) ? 'yes' : 'no'));
  }).finally(() => rl.close());
}

/** `text` with control characters shown as escapes, so that a file's contents cannot rewrite the terminal. */
export function visible(text: string): string {
  let out = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control = (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}
