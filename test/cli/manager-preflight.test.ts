// What `nudger manager` checks before it listens or connects (issue 8, part 2 item 5), in process:
// each problem is a UsageError naming the flag and the value. manager-startup.test.ts runs the
// real CLI for the exit code and for what is left running.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { preflightManager, type ManagerPreflightOptions } from '../../src/cli/commands/manager-preflight.ts';
import { UsageError } from '../../src/cli/errors.ts';
import { generateServingCert } from '../integration/harness/control-plane.ts';

let dir: string;
let certDir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'nudger-preflight-'));
  certDir = join(dir, 'certs');
  mkdirSync(certDir);
  const cert = generateServingCert();
  writeFileSync(join(certDir, 'tls.crt'), cert.certPem);
  writeFileSync(join(certDir, 'tls.key'), cert.keyPem);
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI's defaults, with the test's certificate. */
function options(overrides: Partial<ManagerPreflightOptions> = {}): ManagerPreflightOptions {
  return {
    leaderElect: true,
    leaderElectionNamespace: 'nudger-system',
    leaderElectionId: 'nudger-manager-leader',
    leaderElectLeaseDuration: 15_000,
    leaderElectRenewDeadline: 10_000,
    leaderElectRetryPeriod: 2_000,
    webhookPort: 9443,
    webhookCertDir: certDir,
    metricsPort: 8080,
    healthPort: 8081,
    metricsAuth: 'kubernetes',
    changegroupPollInterval: 30_000,
    botEmail: 'nudger@konflux-ci.dev',
    ...overrides,
  };
}

async function refusal(overrides: Partial<ManagerPreflightOptions>): Promise<string> {
  try {
    await preflightManager(options(overrides));
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(overrides)}`);
}

describe('preflightManager', () => {
  it('accepts the defaults, any-free-port zeros, and metrics sharing the health port', async () => {
    await preflightManager(options());
    await preflightManager(options({ webhookPort: 0, metricsPort: 0, healthPort: 0 }));
    await preflightManager(options({ metricsPort: 8081 }));
    await preflightManager(
      options({ namespace: 'tenant-a', gitCacheDir: join(dir, 'not-yet'), changegroupUrlTemplate: 'https://c/{name}' }),
    );
  });

  it('names the certificate directory and what is wrong with it', async () => {
    assert.equal(
      await refusal({ webhookCertDir: join(dir, 'missing') }),
      `--webhook-cert-dir ${join(dir, 'missing')}: no such directory`,
    );
    assert.equal(
      await refusal({ webhookCertDir: join(certDir, 'tls.crt') }),
      `--webhook-cert-dir ${join(certDir, 'tls.crt')}: is not a directory`,
    );
    const mismatched = join(dir, 'mismatched');
    mkdirSync(mismatched);
    writeFileSync(join(mismatched, 'tls.crt'), generateServingCert().certPem);
    writeFileSync(join(mismatched, 'tls.key'), generateServingCert().keyPem);
    assert.equal(
      await refusal({ webhookCertDir: mismatched }),
      `--webhook-cert-dir ${mismatched}: tls.key does not belong to the certificate in tls.crt`,
    );
  });

  it('never quotes key material, only the path', async () => {
    const garbage = join(dir, 'garbage');
    mkdirSync(garbage);
    writeFileSync(join(garbage, 'tls.crt'), 'SECRET-LOOKING-CONTENT');
    writeFileSync(join(garbage, 'tls.key'), 'SECRET-LOOKING-CONTENT');
    const message = await refusal({ webhookCertDir: garbage });
    assert.doesNotMatch(message, /SECRET-LOOKING-CONTENT/);
    assert.match(message, /tls\.crt is not a PEM certificate/);
  });

  it('checks the lease timings as client-go does', async () => {
    assert.match(
      await refusal({ leaderElectLeaseDuration: 10_000 }),
      /^--leader-elect-lease-duration 10s: must be greater than --leader-elect-renew-deadline 10s/,
    );
    assert.match(
      await refusal({ leaderElectRetryPeriod: 8_500 }),
      /^--leader-elect-renew-deadline 10s: must be greater than 1\.2 × --leader-elect-retry-period 8500ms/,
    );
    assert.equal(
      await refusal({ leaderElectRetryPeriod: 0 }),
      '--leader-elect-retry-period 0s: must be greater than 0',
    );
  });

  it('keeps the webhook port apart from the others', async () => {
    assert.match(await refusal({ webhookPort: 8080 }), /^--webhook-port 8080 and --metrics-port 8080: /);
    assert.match(await refusal({ healthPort: 9443 }), /^--webhook-port 9443 and --health-port 9443: /);
  });

  it('refuses names the API server would refuse', async () => {
    assert.match(await refusal({ namespace: 'Tenant_A' }), /^--namespace "Tenant_A": a namespace name must/);
    assert.match(await refusal({ leaderElectionNamespace: '' }), /^--leader-election-namespace "": /);
    assert.match(await refusal({ leaderElectionId: 'bad..id' }), /^--leader-election-id "bad\.\.id": not a valid/);
    await preflightManager(options({ leaderElectionId: 'nudger.konflux-ci.dev' }));
  });

  it('refuses the remaining values that would only fail later, per reconcile', async () => {
    assert.equal(
      await refusal({ changegroupPollInterval: 0 }),
      '--changegroup-poll-interval 0s: must be greater than 0',
    );
    assert.match(await refusal({ changegroupUrlTemplate: 'console/{name}' }), /is not an http\(s\) URL/);
    assert.match(await refusal({ botEmail: 'nudger' }), /^--bot-email "nudger": is not an email address/);
    assert.equal(
      await refusal({ gitCacheDir: join(certDir, 'tls.key') }),
      `--git-cache-dir ${join(certDir, 'tls.key')}: is not a directory`,
    );
  });

  it('refuses an in-flight byte budget under one largest request and an unknown metrics auth mode', async () => {
    await preflightManager(options({ webhookMaxInflightBytes: 64 * 2 ** 20, metricsAuth: 'none' }));
    assert.equal(
      await refusal({ webhookMaxInflightBytes: 1024 }),
      '--webhook-max-inflight-bytes 1024: must be at least the per-request body cap, 7340032 bytes (7Mi)',
    );
    assert.equal(
      await refusal({ metricsAuth: 'token' as 'none' }),
      '--metrics-auth "token": must be one of none, kubernetes',
    );
  });

  it('checks the dashboard flags: a port of its own, a host, a certificate directory that goes with the port', async () => {
    await preflightManager(options({ dashboardPort: 8082, dashboardHost: '127.0.0.1' }));
    await preflightManager(options({ dashboardPort: 0, dashboardHost: 'localhost', dashboardCertDir: certDir }));
    await preflightManager(options({ dashboardPort: 8443, dashboardHost: '::' }));
    assert.equal(await refusal({ dashboardPort: 70000 }), '--dashboard-port 70000: is not a port number (0-65535)');
    assert.equal(
      await refusal({ dashboardPort: 9443 }),
      '--webhook-port 9443 and --dashboard-port 9443: the HTTPS webhook server needs a port of its own',
    );
    assert.equal(
      await refusal({ dashboardPort: 8081 }),
      '--dashboard-port 8081 and --health-port 8081: the dashboard needs a port of its own',
    );
    assert.equal(
      await refusal({ dashboardPort: 8082, dashboardHost: 'not a host' }),
      '--dashboard-host "not a host": is not an IP address or host name',
    );
    assert.equal(
      await refusal({ dashboardCertDir: certDir }),
      `--dashboard-cert-dir ${certDir}: goes with --dashboard-port`,
    );
    assert.equal(
      await refusal({ dashboardPort: 8082, dashboardCertDir: join(dir, 'missing') }),
      `--dashboard-cert-dir ${join(dir, 'missing')}: no such directory`,
    );
  });
});
