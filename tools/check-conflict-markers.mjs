// `npm run lint`: no tracked file carries a merge's conflict markers. A resolved-looking
// merge once left one in a README for days: git itself does not refuse to commit them.
import { execFileSync } from 'node:child_process';

let found = '';
try {
  found = execFileSync('git', ['grep', '-nI', '-E', '^(<{7} |>{7} |\\|{7} )', '--', '.', ':!package-lock.json'], { encoding: 'utf8' });
} catch (error) {
  // git grep exits 1 when nothing matches
  if (error.status !== 1) throw error;
}
if (found) {
  process.stdout.write(`merge conflict markers left in:\n${found}`);
  process.exitCode = 1;
} else {
  process.stdout.write('✔ no merge conflict markers\n');
}
