export { backendGate, backendUrl, backendsRequired, DEFAULT_BACKEND_URLS } from './require-backend.js';
export type { Backend, BackendGate } from './require-backend.js';
export { makeTempDir, uniqueName } from './temp-dir.js';
export { startLauncherProcess, runLauncherToExit } from './launcher-process.js';
export type { LauncherProcess } from './launcher-process.js';
export { createTestDatabase } from './test-database.js';
export type { TestDatabase } from './test-database.js';
