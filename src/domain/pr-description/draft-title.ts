// Draft state in PR titles. GitHub has a draft flag, so titles never change there; GitLab has no
// draft parameter on its MR API and derives draft from a title prefix (`Draft:`, `[Draft]`,
// `(Draft)`, case-insensitive), so marking ready means removing every such prefix.

export const FORGE_KINDS = ['github', 'gitlab', 'local'] as const;
export type ForgeKind = (typeof FORGE_KINDS)[number];

const GITLAB_DRAFT_PREFIX = /^\s*(?:draft:|\[draft\]|\(draft\))\s*/i;

export function isDraftTitle(title: string, forge: ForgeKind): boolean {
  return forge === 'gitlab' && GITLAB_DRAFT_PREFIX.test(title);
}

/** The title to send when the PR must be a draft. */
export function draftTitle(title: string, forge: ForgeKind): string {
  if (forge !== 'gitlab' || isDraftTitle(title, forge)) return title;
  return `Draft: ${title}`;
}

/** The title to send when the PR must be ready for review. */
export function readyTitle(title: string, forge: ForgeKind): string {
  if (forge !== 'gitlab') return title;
  let out = title;
  while (GITLAB_DRAFT_PREFIX.test(out)) out = out.replace(GITLAB_DRAFT_PREFIX, '');
  return out;
}
