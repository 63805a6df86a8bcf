/**
 * lab's own reporters for mocha and node:test, written by the test command next to the results
 * file (command.ts) and read by results-lines.ts. The runners' built-in machine-readable reporters
 * lose what a test id needs: mocha's `json` keeps only `fullTitle`, the titles joined by spaces,
 * so `a b > c` and `a > b c` look alike; Node 20's `junit` and `tap` reporters do not say which
 * file a passing test came from. Both runners hand a reporter the whole tree, so these record it.
 *
 * mocha also gets a config of lab's (mochaConfigSource), since it adds the files its own config
 * names to those given on the command line.
 *
 * Each reporter writes one JSON line per outcome to the results file as it happens (a run killed midway
 * keeps what it reported) and `{"lab":"end"}` when the run ends; the line shapes are
 * `ReporterLine` in results-lines.ts. Plain JavaScript for any Node the project runs on: no
 * syntax newer than ES2018 in mocha's (Node 10 runs mocha 8), and node:test's needs Node 20.
 */

/** Where a reporter writes: the path as a JavaScript string literal. */
function literal(resultsPath: string): string {
  return JSON.stringify(resultsPath);
}

/**
 * The mocha reporter (CommonJS, loaded by `--reporter <path>`). It records passes, failures
 * (hooks too, marked so) and pending tests with their title path, file and a per-run number
 * that tells one test reported twice (a pass, then a late failure) from two tests of one name.
 * It also starts mocha's `spec` reporter from the project's own mocha, so the log still shows
 * the usual output; without it the run goes on silently.
 */
export function mochaReporterSource(resultsPath: string): string {
  return `'use strict';
const fs = require('fs');
const OUT = ${literal(resultsPath)};
function write(line) { fs.appendFileSync(OUT, JSON.stringify(line) + '\\n'); }
function titles(runnable) {
  if (typeof runnable.titlePath === 'function') return runnable.titlePath().map(String);
  const path = [];
  for (let node = runnable; node; node = node.parent) if (!node.root) path.unshift(String(node.title));
  return path;
}
module.exports = function LabMochaReporter(runner, options) {
  try {
    const mocha = require(require.resolve('mocha', { paths: [process.cwd()] }));
    if (mocha.reporters && mocha.reporters.Spec) new mocha.reporters.Spec(runner, options);
  } catch (error) {
    // No spec output then; the results do not depend on it.
  }
  const numbers = new WeakMap();
  let next = 0;
  function number(runnable) {
    if (!numbers.has(runnable)) numbers.set(runnable, ++next);
    return numbers.get(runnable);
  }
  function record(state) {
    return function (runnable) {
      write({ lab: 'test', uid: number(runnable), titles: titles(runnable), file: runnable.file,
        state: state, hook: runnable.type === 'hook' });
    };
  }
  runner.on('pass', record('passed'));
  runner.on('fail', record('failed'));
  runner.on('pending', record('skipped'));
  runner.once('end', function () { write({ lab: 'end' }); });
};
`;
}

/**
 * The node:test reporter (an ES module for `--test-reporter=<path>`, Node 20 and later). Events
 * come in definition order, a test's `test:start` before its subtests' and its own result after
 * theirs, so the names of the tests started at each nesting level give every result its title
 * path. Suites are marked; skip and todo both count as skipped. It prints nothing: the command
 * adds Node's `spec` reporter for the log.
 */
export function nodeTestReporterSource(resultsPath: string): string {
  return `import { appendFileSync } from 'node:fs';
const OUT = ${literal(resultsPath)};
function write(line) { appendFileSync(OUT, JSON.stringify(line) + '\\n'); }
export default async function* labNodeTestReporter(source) {
  const names = [];
  for await (const event of source) {
    const data = event.data || {};
    if (event.type === 'test:start') {
      names.length = data.nesting;
      names.push(String(data.name));
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const skipped = (data.skip !== undefined && data.skip !== false) ||
      (data.todo !== undefined && data.todo !== false);
    const state = skipped ? 'skipped' : event.type === 'test:pass' ? 'passed' : 'failed';
    const titles = names.slice(0, data.nesting).concat([String(data.name)]);
    const suite = Boolean(data.details && data.details.type === 'suite');
    write({ lab: 'test', titles: titles, file: data.file, state: state, suite: suite });
  }
  write({ lab: 'end' });
}
`;
}

/**
 * A mocha config (`--config <path>`, with `--no-package`) that is the project's own, as mocha
 * itself finds and reads it (`.mocharc.*`, over package.json's `mocha` key), less `spec`: mocha
 * adds the config's spec files to the files given on the command line, so every one-file run
 * would also run every test the config names. `parallel` and `watch` are turned off, pointless
 * for one file. It reads mocha's own `lib/cli/config.js` (mocha 6 and later; `.cjs` configs are
 * read from mocha 8 on).
 */
export function mochaConfigSource(): string {
  return `'use strict';
const fs = require('fs');
const path = require('path');
let dir = path.dirname(require.resolve('mocha', { paths: [process.cwd()] }));
while (!fs.existsSync(path.join(dir, 'lib', 'cli', 'config.js')) && dir !== path.dirname(dir)) {
  dir = path.dirname(dir);
}
const config = require(path.join(dir, 'lib', 'cli', 'config.js'));
let fromPackage = {};
try {
  fromPackage = JSON.parse(fs.readFileSync('package.json', 'utf8')).mocha || {};
} catch (error) {
  // No package.json, or no JSON in it: mocha would have none either.
}
const found = config.findConfig();
const merged = Object.assign({}, fromPackage, found ? config.loadConfig(found) : {});
delete merged.spec;
delete merged._;
delete merged.watch;
merged.parallel = false;
module.exports = merged;
`;
}
