// The control plane moved to src/sandbox/control-plane/ so that `nudger sandbox` can run it too;
// the integration tests keep importing it from here.
export * from '../../../src/sandbox/control-plane/control-plane.ts';
