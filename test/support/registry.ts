// A real local OCI registry for a test file (docs/decisions.md N40), optionally password-protected:
//
//   const registry = await startTestRegistry({ basicAuth: true });
//   after(() => registry.stop());
//   const client = new RegistryClient({ credentials: registry.credentialsLookup });
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import type { RegistryCredentialsLookup } from '../../src/adapters/registry/transport.ts';
import { startLocalRegistry, type LocalRegistry } from '../../src/sandbox/registry.ts';

export const TEST_REGISTRY_USER = 'nudger-test';
/** Only ever a test registry's password; its bcrypt hash (cost 4, the cheapest) is below. */
export const TEST_REGISTRY_PASSWORD = 'nudger-registry-test-password';
const TEST_REGISTRY_HTPASSWD = `${TEST_REGISTRY_USER}:$2b$04$.3QxORrMcQxYZ4vJi3A7GePuf8jhxkYjH5Xh3XCBOG5uMhImD9nUi`;

export interface TestRegistry extends LocalRegistry {
  /** The registry's credentials for its host (basicAuth), nothing for any other host. */
  readonly credentialsLookup: RegistryCredentialsLookup;
}

export async function startTestRegistry(options: { basicAuth?: boolean } = {}): Promise<TestRegistry> {
  const registry = await startLocalRegistry(options.basicAuth === true ? { htpasswd: TEST_REGISTRY_HTPASSWD } : {});
  const credentials = new Credentials({ username: TEST_REGISTRY_USER, token: TEST_REGISTRY_PASSWORD });
  return {
    ...registry,
    credentialsLookup: (host) => (options.basicAuth === true && host === registry.host ? credentials : undefined),
  };
}
