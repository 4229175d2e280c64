// Every module the engine embeds parses as an ES module under V8 (node's parser, no imports
// resolved). QuickJS is laxer about early errors: a duplicate declaration it accepted made
// every isolate of the V8 build fail to boot, while the QuickJS suite passed, and CI only runs
// the suite on V8 where V8 was built. Run: node js/node/test/check-syntax.mjs
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const skip = new Set(['node_modules', 'test']);
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!skip.has(name)) walk(path);
    } else if (name.endsWith('.js')) {
      files.push(path);
    }
  }
})(root);

// vm.SourceTextModule parses a module when it is made (nothing is linked or run); it needs a
// flag, so the check runs in a child started with it.
if (!process.argv.includes('--parse')) {
  const r = spawnSync(process.execPath, ['--experimental-vm-modules', '--no-warnings', fileURLToPath(import.meta.url), '--parse'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const { SourceTextModule } = await import('node:vm');
let passed = 0, failed = 0;
for (const file of files) {
  try {
    new SourceTextModule(readFileSync(file, 'utf8'), { identifier: file });
    passed++;
  } catch (e) {
    failed++;
    console.log(`${relative(root, file)}: ${e.name}: ${e.message}\n${e.stack.split('\n').slice(0, 2).join('\n')}\n`);
  }
}
if (files.length < 50) {
  console.log(`only ${files.length} modules found under ${root}`);
  failed++;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
