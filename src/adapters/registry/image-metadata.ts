// What a buildpacks build says about its image, read from the image config: the process types from
// the `io.buildpacks.build.metadata` label, and the ports from `ExposedPorts`. Korifi fills a
// droplet's `processTypes` and `ports` from exactly these two (issue 13); pure functions, so a bad
// label is a unit-testable typed error naming the image and the label.
import { BuildMetadataError, ImageConfigError } from './errors.ts';

/** The label the buildpacks lifecycle's exporter writes on every app image. */
export const BUILD_METADATA_LABEL = 'io.buildpacks.build.metadata';

export interface BuildpacksProcess {
  /** `web`, `worker`, ... */
  readonly type: string;
  /**
   * The command, as the lifecycle wrote it: one string before buildpack API 0.9, a list (the
   * executable and its fixed arguments) since.
   */
  readonly command: readonly string[];
  /** Arguments the user may override. */
  readonly args: readonly string[];
  /** true: exec'd directly; false: run through a shell. */
  readonly direct: boolean;
  /** The image's default process. */
  readonly default: boolean;
  readonly buildpackId: string | undefined;
  readonly workingDirectory: string | undefined;
}

export interface BuildpackRef {
  readonly id: string;
  readonly version: string;
}

export interface BuildMetadata {
  readonly processes: readonly BuildpacksProcess[];
  readonly buildpacks: readonly BuildpackRef[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses the build metadata label of `image` (a reference, for messages). `labels` is the image
 * config's `config.Labels`. A missing label, bad JSON, or a process without a type or command
 * throws BuildMetadataError; fields a buildpacks build does not always write default.
 */
export function parseBuildMetadata(image: string, labels: Readonly<Record<string, string>>): BuildMetadata {
  const fail = (field: string, reason: string): never => {
    throw new BuildMetadataError(image, BUILD_METADATA_LABEL, field, reason);
  };
  const text = labels[BUILD_METADATA_LABEL];
  if (text === undefined) return fail('', 'the image has no such label (not built by buildpacks?)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fail('', `not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(parsed)) return fail('', 'not a JSON object');
  const processes = parsed.processes ?? [];
  if (!Array.isArray(processes)) return fail('processes', 'not a list');
  const buildpacks = parsed.buildpacks ?? [];
  if (!Array.isArray(buildpacks)) return fail('buildpacks', 'not a list');
  return {
    processes: processes.map((process: unknown, index) => parseProcess(process, `processes[${index}]`, fail)),
    buildpacks: buildpacks.map((buildpack: unknown, index): BuildpackRef => {
      const at = `buildpacks[${index}]`;
      if (!isRecord(buildpack)) return fail(at, 'not an object');
      if (typeof buildpack.id !== 'string' || buildpack.id === '') return fail(`${at}.id`, 'not a non-empty string');
      const version = buildpack.version ?? '';
      if (typeof version !== 'string') return fail(`${at}.version`, 'not a string');
      return { id: buildpack.id, version };
    }),
  };
}

function parseProcess(process: unknown, at: string, fail: (field: string, reason: string) => never): BuildpacksProcess {
  if (!isRecord(process)) return fail(at, 'not an object');
  const { type, command } = process;
  if (typeof type !== 'string' || type === '') return fail(`${at}.type`, 'not a non-empty string');
  let commandList: string[];
  if (typeof command === 'string') commandList = [command];
  else if (Array.isArray(command) && command.every((part) => typeof part === 'string')) commandList = command;
  else return fail(`${at}.command`, 'neither a string nor a list of strings');
  if (commandList.length === 0 || commandList[0] === '') return fail(`${at}.command`, 'empty');
  const args = process.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
    return fail(`${at}.args`, 'not a list of strings');
  }
  const flag = (name: string): boolean => {
    const value = process[name] ?? false;
    return typeof value === 'boolean' ? value : fail(`${at}.${name}`, 'not a boolean');
  };
  const optionalString = (name: string): string | undefined => {
    const value = process[name];
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : fail(`${at}.${name}`, 'not a string');
  };
  return {
    type,
    command: commandList,
    args,
    direct: flag('direct'),
    default: flag('default'),
    buildpackId: optionalString('buildpackID'),
    workingDirectory: optionalString('working-dir'),
  };
}

/**
 * A process's command line as Korifi writes it into a droplet's `processTypes[].command`: the
 * command, then each argument Go-quoted (`%q`), separated by spaces.
 */
export function dropletCommand(process: BuildpacksProcess): string {
  return [process.command.join(' '), ...process.args.map(goQuote)].join(' ');
}

/** Go's strconv.Quote for the characters commands contain: printable text kept, the rest escaped. */
export function goQuote(text: string): string {
  const named: Record<string, string> = {
    '\u0007': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\u000b': '\\v',
    '\\': '\\\\',
    '"': '\\"',
  };
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const escaped = named[char];
    if (escaped !== undefined) out += escaped;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

export interface ExposedPort {
  readonly port: number;
  /** `tcp`, `udp` or `sctp`; `tcp` when the key names none. */
  readonly protocol: string;
}

/**
 * The image config's `ExposedPorts` keys (`8080/tcp`, `53/udp`, `9000`), parsed and sorted by
 * port then protocol. A key that is not `<1-65535>[/tcp|udp|sctp]` throws ImageConfigError.
 */
export function parseExposedPorts(image: string, keys: readonly string[]): ExposedPort[] {
  const ports = keys.map((key): ExposedPort => {
    const match = /^(\d{1,5})(?:\/(tcp|udp|sctp))?$/.exec(key);
    const port = Number(match?.[1]);
    if (match === null || port < 1 || port > 65_535) {
      throw new ImageConfigError(image, 'config.ExposedPorts', `${JSON.stringify(key)} is not <port>[/tcp|udp|sctp]`);
    }
    return { port, protocol: match[2] ?? 'tcp' };
  });
  return ports.sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
}

/** The distinct port numbers, ascending: what a droplet's `ports` holds. */
export function portNumbers(ports: readonly ExposedPort[]): number[] {
  return [...new Set(ports.map((p) => p.port))].sort((a, b) => a - b);
}
