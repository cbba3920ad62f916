// The file-system side of scenarios: reading a scenario file, and reading examples/olm-operator
// for the default scenario. Everything it reads goes to the pure modules beside it.
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  olmOperatorScenario,
  type DefaultScenarioOptions,
  type ExampleFile,
  type OlmOperatorFiles,
} from './default.ts';
import { ScenarioError } from './errors.ts';
import { parseScenario } from './parse.ts';
import type { Scenario } from './schema.ts';

/**
 * examples/olm-operator, found from this module: three levels up is the repository root from
 * src/sandbox/scenario/ and the package root from dist/sandbox/scenario/ alike.
 */
export const DEFAULT_EXAMPLE_DIR = fileURLToPath(new URL('../../../examples/olm-operator/', import.meta.url));

/** Reads and checks a scenario file; an unreadable file is a ScenarioError too. */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new ScenarioError({ file: path }, '(scenario)', `cannot read the file (${code})`, { cause: error });
  }
  return parseScenario(text, path);
}

export async function loadDefaultScenario(
  dir: string = DEFAULT_EXAMPLE_DIR,
  options: DefaultScenarioOptions = {},
): Promise<Scenario> {
  return olmOperatorScenario(await readOlmOperatorFiles(dir), options);
}

/** kustomization.yaml, nudge-config.yaml, components/*.yaml and every file under bundle-repo/. */
export async function readOlmOperatorFiles(dir: string): Promise<OlmOperatorFiles> {
  const read = async (path: string): Promise<ExampleFile> => ({
    path: relative(dir, path).split(sep).join('/'),
    text: await readFile(path, 'utf8'),
  });
  const componentDir = join(dir, 'components');
  const componentFiles = (await readdir(componentDir)).filter((name) => /\.ya?ml$/.test(name)).sort();
  const bundleDir = join(dir, 'bundle-repo');
  const bundleRepository: Record<string, string> = {};
  for (const path of await filesUnder(bundleDir)) {
    bundleRepository[relative(bundleDir, path).split(sep).join('/')] = await readFile(path, 'utf8');
  }
  return {
    kustomization: await read(join(dir, 'kustomization.yaml')),
    manifests: await Promise.all([
      read(join(dir, 'nudge-config.yaml')),
      ...componentFiles.map((name) => read(join(componentDir, name))),
    ]),
    bundleRepository,
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
