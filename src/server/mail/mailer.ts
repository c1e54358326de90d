/**
 * Outgoing email of the service (D-213): the managed tier's one-time codes and notices (D-210). With
 * SVC_SMTP_URL, nodemailer hands each message to that SMTP server; without it (development) the message,
 * code included, is written to the server log, and the log says so once at start. Sending never blocks or
 * fails the request that asked for it: the answer must not depend on whether, or how fast, a mail went out.
 * The SMTP URL, its credentials and a message's text never reach a log or an error on the SMTP path.
 */
import { createTransport } from 'nodemailer';

/** One plain-text message to one recipient. */
export type MailMessage = { to: string; subject: string; text: string };

/** Where the mailer writes what it has to say (the origin's logger). */
export type MailLog = { warn(message: string): void; error(message: string): void };

/** Sends the service's emails. */
export interface Mailer {
  /** True when messages go to the server log (no SVC_SMTP_URL). */
  readonly toLog: boolean;
  /** Queues `message` for delivery and returns at once; a failure is logged without the message or the server's URL. */
  send(message: MailMessage): void;
  /** Waits for the queued messages (tests), then closes the SMTP connections. */
  close(): Promise<void>;
}

/** D-213: the announcement written at start when codes go to the log. */
export const LOG_DELIVERY_NOTICE =
  'svckit mail: SVC_SMTP_URL is not set, so managed-account email codes are written to this log instead of being sent (development only)';

/** Messages waiting for the SMTP server at most; past it a message is dropped and the drop logged (every limit bounded). */
export const MAX_QUEUED = 200;

/** Options of {@link createMailer}. */
export type MailerOptions = { smtpUrl: string | undefined; from: string; log: MailLog };

/** The mailer of the settings: SMTP when `smtpUrl` is set, the log otherwise (announced now). */
export function createMailer(options: MailerOptions): Mailer {
  if (!options.smtpUrl) return logMailer(options.log);
  return smtpMailer(options.smtpUrl, options.from, options.log);
}

function logMailer(log: MailLog): Mailer {
  log.warn(LOG_DELIVERY_NOTICE);
  return {
    toLog: true,
    send: (message) =>
      log.warn(`svckit mail (development, not sent): to ${message.to}: ${message.subject}: ${message.text}`),
    close: async () => undefined,
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function smtpMailer(smtpUrl: string, from: string, log: MailLog): Mailer {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = createTransport(
    {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port) || (secure ? 465 : 587),
      secure,
      // D-213: off loopback, smtp:// must upgrade with STARTTLS; the credentials never cross the network in clear.
      requireTLS: !secure && !LOOPBACK.has(url.hostname),
      ...(url.username
        ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
        : {}),
      pool: true,
      maxConnections: 2,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      logger: false,
      debug: false,
    },
    { from },
  );
  // A pooled connection that fails while idle is reported as an event; unheard, it would end the process.
  transport.on('error', (error: { code?: unknown }) =>
    log.error(`svckit mail: the SMTP connection failed: ${typeof error?.code === 'string' ? error.code : 'unknown'}`),
  );
  const pending = new Set<Promise<void>>();
  return {
    toLog: false,
    send(message) {
      if (pending.size >= MAX_QUEUED) {
        log.error(`svckit mail: ${MAX_QUEUED} messages already wait for the SMTP server; one was dropped`);
        return;
      }
      const sent = transport
        .sendMail({ to: message.to, subject: message.subject, text: message.text })
        .then(
          () => undefined,
          (error: { code?: unknown; responseCode?: unknown }) => {
            // Only the failure's kind: the error's text may quote the server's answer or the message.
            const code = typeof error?.code === 'string' ? error.code : 'unknown';
            const status = typeof error?.responseCode === 'number' ? ` (SMTP ${error.responseCode})` : '';
            log.error(`svckit mail: a message could not be sent: ${code}${status}`);
          },
        )
        .finally(() => pending.delete(sent));
      pending.add(sent);
    },
    async close() {
      await Promise.allSettled([...pending]);
      transport.close();
    },
  };
}
