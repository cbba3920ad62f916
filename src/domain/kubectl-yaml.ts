// How YAML is read everywhere in nudger: as kubectl reads it, so that nudger sees the values the
// API server would. kubectl's YAML library follows YAML 1.1, so `yes`/`no`/`on`/`off` are booleans
// and `0755` is octal; two 1.1 types are left out because kubectl keeps them as strings:
// timestamps (`2024-01-01`) and base-60 numbers (`1:20`). A `%YAML 1.2` directive still switches a
// document to 1.2. Merge keys (`<<`) come with 1.1. Pure configuration for the `yaml` package.
import type { Tags } from 'yaml';

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';

export const KUBECTL_YAML_OPTIONS = {
  version: '1.1',
  prettyErrors: false,
  uniqueKeys: true,
  // yaml reports oddities it tolerates (e.g. "Keys with collection values will be stringified")
  // through process.emitWarning, i.e. raw on stderr. nudger reports what matters itself.
  logLevel: 'error',
  customTags: (tags: Tags): Tags => tags.filter((tag) => !isKubectlStringType(tag)),
} as const;

function isKubectlStringType(tag: Tags[number]): boolean {
  if (typeof tag === 'string') return tag === 'timestamp' || tag === 'intTime' || tag === 'floatTime';
  return tag.tag === TIMESTAMP_TAG || tag.format === 'TIME';
}
