import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer/index.js";
import type Mail from "nodemailer/lib/mailer/index.js";

export interface Mailer {
  /** Sends a message; resolves with a short description of where it went. */
  send(message: Mail.Options): Promise<string>;
  close(): void;
}

/** The whole RFC 5322 message, as nodemailer would send it; for drafts. */
export async function composeMessage(message: Mail.Options): Promise<string> {
  const built = await new MailComposer(message).compile().build();
  return built.toString("utf8");
}

/**
 * SMTP when SMTP_URL is set; otherwise each message is written as an .eml file under
 * DATA_DIR/mail, so the default installation needs no mail server.
 */
export function createMailer(options: { smtpUrl: string | null; dataDir: string }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        const info = await transport.sendMail(message);
        return `accepted by SMTP as ${info.messageId}`;
      },
      close: () => transport.close(),
    };
  }
  const directory = join(options.dataDir, "mail");
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(message) {
      const info = await transport.sendMail(message);
      mkdirSync(directory, { recursive: true });
      const file = join(directory, `${String(info.messageId).replace(/[^A-Za-z0-9@._-]/g, "")}.eml`);
      writeFileSync(file, info.message as Buffer);
      return `written to ${file}`;
    },
    close: () => transport.close(),
  };
}
