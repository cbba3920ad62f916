// Run as a child process by harness.test.ts: starts a control plane, prints where it lives, then
// ends WITHOUT close(), as a careless test would. The harness must still take both servers and
// the temp dir down with this process.
import { startControlPlane } from './control-plane.ts';

const plane = await startControlPlane();
process.stdout.write(`${JSON.stringify({ directory: plane.directory, pids: plane.pids })}\n`);
