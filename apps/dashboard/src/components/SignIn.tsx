import { useState } from 'preact/hooks';
import { ApiFailure, sessionApi, type Session } from '../api/client.js';

/**
 * Sign in with an e-mailed code: e-mail → code (autocomplete one-time-code). A new
 * address must accept the terms: the server answers terms_not_accepted, and the
 * form then asks for the box (shown from the start too, for people who know).
 */
const MESSAGES: Record<string, string> = {
  otp_invalid: 'That code is wrong, expired or already used. Check the latest e-mail or send a new code.',
  rate_limited: 'Too many attempts. Wait a little and try again.',
  terms_not_accepted: 'This address has no account yet. To create one, accept the terms.',
  email_undeliverable: 'Codes cannot be sent to that address.',
  domain_not_allowed: 'Addresses in that domain are not accepted.',
  invalid_request: 'Check the e-mail address and the six-digit code.',
};

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [step, setStep] = useState<'email' | 'code'>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [terms, setTerms] = useState(false);
  const [needsTerms, setNeedsTerms] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();

  const explain = (failure: unknown) => {
    if (failure instanceof ApiFailure) setError(MESSAGES[failure.code] ?? failure.message);
    else setError('Something went wrong. Try again.');
  };

  const sendCode = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await sessionApi.sendCode(email.trim());
      setStep('code');
      setNotice(`We sent a six-digit code to ${email.trim()}. It is valid for 10 minutes.`);
    } catch (failure) {
      explain(failure);
    } finally {
      setBusy(false);
    }
  };

  const verify = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await sessionApi.signIn(email.trim(), code.trim(), terms);
      onSignedIn(session);
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'terms_not_accepted') setNeedsTerms(true);
      explain(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Sightline</h1>
      {step === 'email' ? (
        <form onSubmit={sendCode}>
          <label for="sign-in-email">Email</label>
          <input
            id="sign-in-email"
            type="email"
            name="email"
            autocomplete="email"
            required
            maxLength={254}
            value={email}
            onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" disabled={busy}>
            Send code
          </button>
        </form>
      ) : (
        <form onSubmit={verify}>
          {notice && <p role="status">{notice}</p>}
          <label for="sign-in-code">Code</label>
          <input
            id="sign-in-code"
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            value={code}
            onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)}
          />
          <div class={needsTerms ? 'terms terms-needed' : 'terms'}>
            <input
              id="sign-in-terms"
              type="checkbox"
              aria-describedby="sign-in-terms-hint"
              checked={terms}
              onChange={(e) => setTerms((e.currentTarget as HTMLInputElement).checked)}
            />
            <label for="sign-in-terms">
              I accept the{' '}
              <a href="/terms" target="_blank" rel="noopener">
                terms
              </a>
            </label>
            <p id="sign-in-terms-hint" class="hint">
              Needed once, when this address has no account yet.
            </p>
          </div>
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          <button
            type="button"
            class="link-button"
            onClick={() => {
              setStep('email');
              setCode('');
              setError(undefined);
            }}
          >
            Use another address or send a new code
          </button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </main>
  );
}
