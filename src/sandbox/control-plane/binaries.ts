// Finds etcd and kube-apiserver. KUBEBUILDER_ASSETS wins (the envtest convention); otherwise the
// project's provisioning script is asked, which answers from its cache at once on a warm machine
// and builds on a cold one. Never skips: a missing binary is an error, so CI cannot go green
// without having run the integration tests.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { ControlPlaneBinariesError } from './errors.ts';
import { REPO_ROOT } from './paths.ts';

export interface ControlPlaneBinaries {
  readonly directory: string;
  readonly etcd: string;
  readonly kubeApiserver: string;
}

const PROVISION_SCRIPT = join(REPO_ROOT, 'scripts', 'provision-control-plane.sh');

/** The bin directory from `assets` (KUBEBUILDER_ASSETS) or, when unset, the provisioning script. */
export function controlPlaneBinDirectory(assets: string | undefined = process.env.KUBEBUILDER_ASSETS): string {
  if (assets !== undefined && assets !== '') return assets;
  try {
    // stderr is inherited so a cold build's progress shows; stdout carries only the directory.
    const out = execFileSync('bash', [PROVISION_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const directory = out.trim().split('\n').at(-1) ?? '';
    if (directory === '') throw new ControlPlaneBinariesError(undefined, `${PROVISION_SCRIPT} printed no directory`);
    return directory;
  } catch (error) {
    if (error instanceof ControlPlaneBinariesError) throw error;
    const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
    throw new ControlPlaneBinariesError(
      undefined,
      `KUBEBUILDER_ASSETS is unset and ${PROVISION_SCRIPT} failed: ${reason}`,
    );
  }
}

/** Checks that `directory` holds executable etcd and kube-apiserver. */
export function resolveControlPlaneBinaries(directory: string = controlPlaneBinDirectory()): ControlPlaneBinaries {
  const path = (name: string): string => {
    const file = join(directory, name);
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch {
      throw new ControlPlaneBinariesError(directory, `${name} not found`);
    }
    if (!isFile) throw new ControlPlaneBinariesError(directory, `${name} is not a regular file`);
    try {
      accessSync(file, constants.X_OK);
    } catch {
      throw new ControlPlaneBinariesError(directory, `${name} is not executable`);
    }
    return file;
  };
  return { directory, etcd: path('etcd'), kubeApiserver: path('kube-apiserver') };
}
