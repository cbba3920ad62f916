// The Node.js the built CLI needs, checked by src/cli/bin.ts before anything else is imported.
// This module imports nothing and uses nothing newer than Node 12, so an old Node can run it and
// print one line instead of a stack trace from deep inside a dependency.

/**
 * The lowest major version nudger runs on: the one its CI and scripts use (scripts/lib/node.sh).
 * Older majors fail in dependencies (undici 8 needs >= 22.19, commander 15 >= 22.12) and were never
 * tested. package.json `engines` says the same; test/cli/node-version.test.ts keeps them equal.
 */
export const REQUIRED_NODE_MAJOR = 24;

/** One line for a Node.js too old to run nudger, or undefined when `version` will do. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= REQUIRED_NODE_MAJOR) return undefined;
  return (
    `nudger needs Node.js >= ${String(REQUIRED_NODE_MAJOR)}; this is v${version.replace(/^v/, '')}. ` +
    `Install Node.js ${String(REQUIRED_NODE_MAJOR)} or later and run nudger with it.`
  );
}
