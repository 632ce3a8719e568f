// `npm run lint`: checks the import rules of .dependency-cruiser.cjs over apps/, libs/,
// load-tests/ and tools/. Calls dependency-cruiser's API rather than its CLI because the
// CLI refuses Node 20 (its engines say ^22), while the API runs fine on the Node we support.
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const ruleSet = require('../.dependency-cruiser.cjs');
const { options, ...rules } = ruleSet;

const result = await cruise(['apps', 'libs', 'load-tests', 'tools'], { ...options, ruleSet: rules, validate: true, outputType: 'err' });
process.stdout.write(result.output);
process.exitCode = result.exitCode > 0 ? 1 : 0;
