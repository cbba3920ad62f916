// The GitHub provider's public surface.
export { GitHubForge, type GitHubForgeOptions } from './github-forge.ts';
export { deriveGraphqlUrl, GITHUB_API_URL, type GitHubRetryOptions } from './client.ts';
