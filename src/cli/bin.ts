#!/usr/bin/env node
// The `nudger` executable. ESM evaluates every static import before the first statement runs, so
// the Node.js version is checked here, in a module whose only import is the check itself, and the
// real CLI is loaded afterwards: on Node 20 the user gets one line and exit 2, not a stack trace
// from a dependency (issue 8, part 2 item 9).
import { unsupportedNodeMessage } from './node-version.ts';

const problem = unsupportedNodeMessage(process.versions.node);
if (problem === undefined) {
  const { main } = await import('./main.ts');
  await main();
} else {
  process.stderr.write(`nudger: ${problem}\n`);
  process.exitCode = 2;
}
