// Moved to src/sandbox/control-plane/binaries.ts; kept for test/deploy/kubectl.ts.
export * from '../../../src/sandbox/control-plane/binaries.ts';
