// The pure parts of the registry client: image references, WWW-Authenticate challenges, the
// buildpacks build metadata label and ExposedPorts (docs/decisions.md N40).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BuildMetadataError,
  ImageConfigError,
  ImageReferenceError,
  InsecureRegistryError,
} from '../../../src/adapters/registry/errors.ts';
import {
  BUILD_METADATA_LABEL,
  dropletCommand,
  goQuote,
  parseBuildMetadata,
  parseExposedPorts,
  portNumbers,
} from '../../../src/adapters/registry/image-metadata.ts';
import {
  assertSecureUrl,
  isLoopbackHost,
  parseImageReference,
  registryBaseUrl,
  withDigest,
} from '../../../src/adapters/registry/reference.ts';
import { tarArchive } from '../../../src/adapters/registry/tar.ts';
import { parseChallenge } from '../../../src/adapters/registry/transport.ts';

const IMAGE = '127.0.0.1:5000/apps/my-app@sha256:' + 'a'.repeat(64);
const labels = (metadata: unknown): Record<string, string> => ({
  [BUILD_METADATA_LABEL]: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
});

describe('parseBuildMetadata', () => {
  it('reads processes written by older lifecycles (command a string) and newer ones (a list)', () => {
    const parsed = parseBuildMetadata(
      IMAGE,
      labels({
        buildpacks: [{ id: 'paketo-buildpacks/node-engine', version: '1.2.3' }],
        processes: [
          {
            type: 'web',
            command: 'node server.js',
            args: [],
            direct: false,
            buildpackID: 'paketo-buildpacks/npm-start',
          },
          { type: 'worker', command: ['node', 'worker.js'], args: ['--queue', 'jobs'], direct: true, default: true },
        ],
      }),
    );
    assert.deepEqual(parsed.buildpacks, [{ id: 'paketo-buildpacks/node-engine', version: '1.2.3' }]);
    assert.deepEqual(parsed.processes, [
      {
        type: 'web',
        command: ['node server.js'],
        args: [],
        direct: false,
        default: false,
        buildpackId: 'paketo-buildpacks/npm-start',
        workingDirectory: undefined,
      },
      {
        type: 'worker',
        command: ['node', 'worker.js'],
        args: ['--queue', 'jobs'],
        direct: true,
        default: true,
        buildpackId: undefined,
        workingDirectory: undefined,
      },
    ]);
  });

  it('takes a label without processes as an image with none', () => {
    assert.deepEqual(parseBuildMetadata(IMAGE, labels({ buildpacks: [] })).processes, []);
  });

  const refusals: [string, Record<string, string>, string, RegExp][] = [
    ['no label', {}, '', /has no such label/],
    ['bad JSON', labels('{"processes": ['), '', /not JSON/],
    ['a JSON list', labels([]), '', /not a JSON object/],
    ['processes not a list', labels({ processes: {} }), 'processes', /not a list/],
    ['a process without type', labels({ processes: [{ command: 'x' }] }), 'processes[0].type', /non-empty string/],
    ['a numeric command', labels({ processes: [{ type: 'web', command: 7 }] }), 'processes[0].command', /neither/],
    ['an empty command', labels({ processes: [{ type: 'web', command: [] }] }), 'processes[0].command', /empty/],
    [
      'args not strings',
      labels({ processes: [{ type: 'web', command: 'x', args: [1] }] }),
      'processes[0].args',
      /strings/,
    ],
    [
      'direct not a boolean',
      labels({ processes: [{ type: 'w', command: 'x', direct: 'yes' }] }),
      'processes[0].direct',
      /boolean/,
    ],
    ['a buildpack without id', labels({ buildpacks: [{ version: '1' }] }), 'buildpacks[0].id', /non-empty/],
  ];
  for (const [name, given, field, reason] of refusals) {
    it(`refuses ${name} with a BuildMetadataError naming the image, the label and the field`, () => {
      assert.throws(
        () => parseBuildMetadata(IMAGE, given),
        (error: unknown) => {
          assert.ok(error instanceof BuildMetadataError);
          assert.equal(error.reference, IMAGE);
          assert.equal(error.label, BUILD_METADATA_LABEL);
          assert.equal(error.field, field);
          assert.match(error.reason, reason);
          assert.ok(error.message.includes(IMAGE) && error.message.includes(BUILD_METADATA_LABEL), error.message);
          return true;
        },
      );
    });
  }
});

describe('dropletCommand', () => {
  it('writes the command, then each argument Go-quoted, as Korifi does', () => {
    const process = parseBuildMetadata(
      IMAGE,
      labels({ processes: [{ type: 'web', command: 'java', args: ['-jar', 'app with space.jar', 'say "hi"\n'] }] }),
    ).processes[0]!;
    assert.equal(dropletCommand(process), 'java "-jar" "app with space.jar" "say \\"hi\\"\\n"');
  });

  it('goQuote escapes control characters the way strconv.Quote does', () => {
    assert.equal(goQuote('a\tb\u0001\u007fé\\'), '"a\\tb\\x01\\x7fé\\\\"');
  });
});

describe('parseExposedPorts', () => {
  it('parses, defaults the protocol to tcp and sorts; portNumbers keeps each number once', () => {
    const ports = parseExposedPorts(IMAGE, ['9090/udp', '8080/tcp', '9090', '443/sctp']);
    assert.deepEqual(ports, [
      { port: 443, protocol: 'sctp' },
      { port: 8080, protocol: 'tcp' },
      { port: 9090, protocol: 'tcp' },
      { port: 9090, protocol: 'udp' },
    ]);
    assert.deepEqual(portNumbers(ports), [443, 8080, 9090]);
  });

  for (const key of ['http', '0/tcp', '70000/tcp', '8080/icmp', '8080-8081/tcp']) {
    it(`refuses ${JSON.stringify(key)} with an ImageConfigError naming the image and config.ExposedPorts`, () => {
      assert.throws(
        () => parseExposedPorts(IMAGE, [key]),
        (error: unknown) =>
          error instanceof ImageConfigError && error.reference === IMAGE && error.field === 'config.ExposedPorts',
      );
    });
  }
});

describe('parseImageReference', () => {
  it('reads host, port, repository, tag and digest', () => {
    const digest = `sha256:${'b'.repeat(64)}`;
    assert.deepEqual(parseImageReference(`127.0.0.1:5000/cf/apps/a-b_c:v1.2@${digest}`), {
      original: `127.0.0.1:5000/cf/apps/a-b_c:v1.2@${digest}`,
      registry: '127.0.0.1:5000',
      repository: 'cf/apps/a-b_c',
      tag: 'v1.2',
      digest,
    });
    assert.equal(withDigest(parseImageReference('localhost/x:1'), digest), `localhost/x@${digest}`);
  });

  it('puts host-less names on Docker Hub, with library/ for one component', () => {
    assert.deepEqual(
      [parseImageReference('busybox'), parseImageReference('paketo/builder:base')].map((r) => [
        r.registry,
        r.repository,
        r.tag,
      ]),
      [
        ['docker.io', 'library/busybox', undefined],
        ['docker.io', 'paketo/builder', 'base'],
      ],
    );
    assert.equal(registryBaseUrl(parseImageReference('busybox')).href, 'https://registry-1.docker.io/');
  });

  for (const bad of ['', 'Upper/Case', 'host:5000/repo:', 'repo@sha256:abc', 'quay.io/', 'a//b', 'repo:t@g']) {
    it(`refuses ${JSON.stringify(bad)} with an ImageReferenceError naming it`, () => {
      assert.throws(
        () => parseImageReference(bad),
        (error: unknown) => error instanceof ImageReferenceError && error.reference === bad,
      );
    });
  }

  it('speaks plain HTTP only to loopback hosts', () => {
    assert.equal(registryBaseUrl(parseImageReference('127.0.0.1:5000/a')).protocol, 'http:');
    assert.equal(registryBaseUrl(parseImageReference('localhost:5000/a')).protocol, 'http:');
    assert.equal(registryBaseUrl(parseImageReference('registry.example.com:5000/a')).protocol, 'https:');
    assert.ok(isLoopbackHost('[::1]:5000'));
    assert.ok(!isLoopbackHost('127.example.com'));
    assert.throws(() => {
      assertSecureUrl('registry.example.com/a', new URL('http://registry.example.com/v2/'));
    }, InsecureRegistryError);
    assertSecureUrl('127.0.0.1:1/a', new URL('http://127.0.0.1:1/token'));
  });
});

describe('parseChallenge', () => {
  it('reads the scheme and quoted or bare parameters', () => {
    assert.deepEqual(
      parseChallenge(
        'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull"',
      ),
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.example.com/token',
          service: 'registry.example.com',
          scope: 'repository:a/b:pull',
        },
      },
    );
    assert.deepEqual(parseChallenge('Basic realm=nudger'), { scheme: 'basic', params: { realm: 'nudger' } });
    assert.equal(parseChallenge(null), undefined);
  });
});

describe('tarArchive', () => {
  it('is deterministic and ustar-shaped', () => {
    const a = tarArchive([{ path: 'workspace/droplet.txt', content: 'stack-1' }]);
    const b = tarArchive([{ path: 'workspace/droplet.txt', content: 'stack-1' }]);
    assert.deepEqual(a, b);
    assert.equal(a.byteLength, 512 + 512 + 1024);
    assert.equal(Buffer.from(a.subarray(257, 262)).toString(), 'ustar');
    assert.notDeepEqual(a, tarArchive([{ path: 'workspace/droplet.txt', content: 'stack-2' }]));
  });
});
