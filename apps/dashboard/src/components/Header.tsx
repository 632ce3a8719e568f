import { useState } from 'preact/hooks';
import { ApiFailure, sessionApi, type Session } from '../api/client.js';
import { currentTheme, setTheme, type Theme } from '../theme.js';

/** Brand, theme choice and (signed in) the account's e-mail with sign out / sign out everywhere. */
export function Header({ session, onSignedOut }: { session: Session | undefined; onSignedOut: () => void }) {
  const [theme, setThemeState] = useState<Theme>(currentTheme());
  const [error, setError] = useState<string | undefined>();
  const signOut = async (everywhere: boolean) => {
    if (!session) return;
    try {
      await (everywhere ? sessionApi.signOutEverywhere(session.csrf_token) : sessionApi.signOut(session.csrf_token));
      onSignedOut();
      if (location.pathname !== '/') location.assign('/');
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'Sign-out failed.');
    }
  };
  return (
    <header class="page-header">
      <a class="brand" href="/">
        Sightline
      </a>
      <div class="header-tools">
        <label class="theme-picker">
          <span>Theme</span>
          <select
            value={theme}
            onChange={(e) => {
              const value = (e.currentTarget as HTMLSelectElement).value as Theme;
              setThemeState(value);
              setTheme(value, true);
            }}
          >
            <option value="system">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        {session && (
          <>
            <span class="account">{session.email}</span>
            <button type="button" onClick={() => void signOut(false)}>
              Sign out
            </button>
            <button type="button" onClick={() => void signOut(true)}>
              Sign out everywhere
            </button>
          </>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </header>
  );
}
