// A real SMTP server (smtp-server) on a loopback port for the tests: the receiving end of the service's mail
// (D-213). It asks for the credentials it was started with and keeps every message it accepts.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One accepted message: its envelope recipients and its decoded text. */
export type Received = { to: string[]; raw: string; text: string };

/** The receiver: its smtp:// URL (with credentials), what it got, and how to wait for more. */
export type SmtpReceiver = {
  url: string;
  user: string;
  password: string;
  messages: Received[];
  /**
   * Polls (bounded) until a message to `to` matching `pattern` arrives, among the messages from index `from`
   * on; returns the pattern's first group.
   */
  waitFor(to: string, pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  /** Failed logins seen. */
  failedLogins: number;
  close(): Promise<void>;
};

/** Quoted-printable soft breaks and escapes undone; enough for the service's plain ASCII and UTF-8 texts. */
const decodeQuotedPrintable = (s: string) =>
  s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Starts a receiver on 127.0.0.1 at an ephemeral port; `password` is the one it accepts. */
export async function startSmtpReceiver(password = 'smtp-secret-6f1c'): Promise<SmtpReceiver> {
  const user = 'svckit';
  const receiver: Omit<SmtpReceiver, 'url' | 'close'> & Partial<SmtpReceiver> = {
    user,
    password,
    messages: [],
    failedLogins: 0,
    async waitFor(to, pattern, from = 0, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const m of receiver.messages.slice(from)) {
          const hit = m.to.includes(to) ? pattern.exec(m.text) : null;
          if (hit) return hit[1] ?? hit[0];
        }
        if (Date.now() > deadline) throw new Error(`no message to ${to} matching ${pattern} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      receiver.failedLogins += 1;
      return callback(new Error('invalid credentials'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
        receiver.messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: /quoted-printable/i.test(raw) ? decodeQuotedPrintable(body) : body,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  receiver.url = `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver as SmtpReceiver;
}
