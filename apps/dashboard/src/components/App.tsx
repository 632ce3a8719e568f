import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiFailure, SESSION_ENDED, sessionApi, StatsClient, type Session } from '../api/client.js';
import type { Boot } from '../boot.js';
import { Dashboard } from './Dashboard.js';
import { Header } from './Header.js';
import { SignIn } from './SignIn.js';
import { SitesList } from './SitesList.js';

/** The page for the boot's `page`: sign-in or sites list (home), a member's site, a share. */
export function App({ boot }: { boot: Boot }) {
  const needsSession = boot.page !== 'share';
  const [session, setSession] = useState<Session | null | undefined>(needsSession ? undefined : null);
  const [failure, setFailure] = useState<ApiFailure | undefined>();

  useEffect(() => {
    if (!needsSession) return;
    sessionApi.current().then(setSession, (error: unknown) => {
      if (error instanceof ApiFailure && error.status === 401) setSession(null);
      else setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'client_error', String(error), undefined));
    });
  }, [needsSession]);
  useEffect(() => {
    const ended = () => setSession(null);
    addEventListener(SESSION_ENDED, ended);
    return () => removeEventListener(SESSION_ENDED, ended);
  }, []);

  // one client per data source: a new one would restart the dashboard
  const csrf = session?.csrf_token;
  const client = useMemo(() => {
    if (boot.page === 'share' && boot.share_hash) return new StatsClient({ kind: 'share', hash: boot.share_hash });
    if (boot.page === 'site' && boot.site_id !== undefined && csrf) return new StatsClient({ kind: 'session', siteId: boot.site_id, csrfToken: csrf });
    return undefined;
  }, [csrf]);
  const chrome = !boot.embed;
  let body;
  if (failure)
    body = (
      <main id="main" class="page-message">
        <p role="alert">Could not reach Sightline: {failure.message}</p>
      </main>
    );
  else if (session === undefined)
    body = (
      <main id="main" class="page-message" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  else if (boot.page === 'share' && client) body = <Dashboard client={client} embed={boot.embed} />;
  else if (session === null) body = <SignIn onSignedIn={(s) => setSession(s)} />;
  else if (boot.page === 'site' && client) body = <Dashboard client={client} embed={false} />;
  else body = <SitesList session={session} />;

  return (
    <>
      {chrome && (
        <a class="skip-link" href="#main">
          Skip to content
        </a>
      )}
      {chrome && <Header session={session ?? undefined} onSignedOut={() => setSession(null)} />}
      {body}
      {chrome && (
        <footer class="page-footer">
          <a href="/terms">Terms</a>
        </footer>
      )}
    </>
  );
}
