// The GitLab provider's public surface.
export { GitLabForge, GITLAB_API_PATH, GITLAB_GIT_USERNAME, type GitLabForgeOptions } from './gitlab-forge.ts';
