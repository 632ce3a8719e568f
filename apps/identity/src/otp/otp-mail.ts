import type { MailMessage } from '@sightline/mailer';
import { OTP_TTL_MINUTES } from './otp-code.js';

/**
 * The sign-in mail. The code is in the body only — not the subject, which mail
 * relays log and lock screens show. The same mail goes to new and known addresses.
 */
export function otpMail(to: string, code: string, options: { publicUrl: string; termsVersion: string; termsUrl: string }): MailMessage {
  return {
    to,
    subject: 'Your Sightline sign-in code',
    text: [
      `Your Sightline code is: ${code}`,
      '',
      `It is valid for ${OTP_TTL_MINUTES} minutes and works once. Send it to POST /api/v1/auth/verify-otp`,
      `with "accept_terms": true once you have read and agreed to the terms of service (version ${options.termsVersion}):`,
      options.termsUrl,
      '',
      'If you did not ask for this code, ignore this mail: nothing happens without it.',
      '',
      `Sightline — ${options.publicUrl}`,
    ].join('\n'),
  };
}
