import { startSmtpSink, type SmtpSink } from '@sightline/mailer/testing';
import { createTestDatabase, makeTempDir, startLauncherProcess, type LauncherProcess, type TestDatabase } from '@sightline/testkit';

/**
 * What a kill -9 test of the single process (`npm start`) needs: its own PostgreSQL
 * database, data dir (local journal, embedded chDB) and mail sink, and a `start` that
 * launches the real launcher on them — again and again, on the same data.
 */
export interface SingleProcessFixture {
  dataDir: string;
  smtp: SmtpSink;
  start(): Promise<LauncherProcess>;
  close(): Promise<void>;
}

export async function singleProcessFixture(pgUrl: string, databaseName: string): Promise<SingleProcessFixture> {
  const database: TestDatabase = await createTestDatabase(pgUrl, databaseName);
  const dataDir = await makeTempDir();
  const smtp = await startSmtpSink();
  return {
    dataDir: dataDir.path,
    smtp,
    start: () =>
      startLauncherProcess({
        env: {
          SIGHTLINE_DATA_DIR: dataDir.path,
          DATABASE_URL: database.url,
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`,
          HOST: '127.0.0.1',
          TRUSTED_PROXIES: '127.0.0.1,::1',
        },
      }),
    close: async () => {
      await smtp.close();
      await dataDir.remove();
      await database.drop();
    },
  };
}
