import type { SendMailOptions } from 'nodemailer';
import type { MailMessage } from './mailer.js';

/** The nodemailer message both adapters build from a MailMessage. */
export function toNodemailerMessage(from: string, message: MailMessage): SendMailOptions {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html !== undefined ? { html: message.html } : {}),
    // Privacy: do not advertise the mail library and its version to every recipient.
    xMailer: false,
  };
}
