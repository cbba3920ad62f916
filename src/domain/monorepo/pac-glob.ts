// The globs of Pipelines-as-Code's `"<glob>".pathChanged()` (docs/decisions.md N33). PaC compiles
// each with gobwas/glob's `glob.MustCompile(pattern)` and no separators, and matches it against
// every repository-relative path the event changed. Without separators gobwas/glob's `*` (and
// `**`, `***`) match any run of characters, `/` included, and `?` any one character: so
// `docs/*.md` matches `docs/a/b.md` too. npm matchers (picomatch, minimatch) stop `*` at `/`, so
// they would under-match what PaC builds on; this small translation to an anchored RegExp keeps
// gobwas/glob's syntax: `*`, `?`, `[abc]`, `[a-z]`, `[!abc]`, `{a,b}` (alternatives that may hold
// patterns) and `\` escapes.

/** The glob is not one gobwas/glob compiles (PaC's MustCompile would panic on it). */
export class PacGlobError extends Error {
  override readonly name = 'PacGlobError';
  readonly glob: string;
  readonly reason: string;

  constructor(glob: string, reason: string) {
    super(`glob ${JSON.stringify(glob)}: ${reason}`);
    this.glob = glob;
    this.reason = reason;
  }
}

// What must be escaped in a `u`-flag RegExp, which refuses escapes of anything else.
const SYNTAX = /[\\^$.*+?()[\]{}|/]/;
const CLASS_SYNTAX = /[\\^[\]-]/;

function literal(char: string): string {
  return SYNTAX.test(char) ? `\\${char}` : char;
}

function classLiteral(char: string): string {
  return CLASS_SYNTAX.test(char) ? `\\${char}` : char;
}

/** The anchored RegExp PaC's glob stands for; throws PacGlobError when it would not compile. */
export function pacGlobRegExp(glob: string): RegExp {
  // Code points, as gobwas/glob reads runes (`?` is one character, not one UTF-16 unit).
  // eslint-disable-next-line @typescript-eslint/no-misused-spread
  const chars = [...glob];
  let at = 0;

  const fail = (reason: string): never => {
    throw new PacGlobError(glob, reason);
  };

  const classAt = (): string => {
    at++; // '['
    let negated = false;
    if (chars[at] === '!') {
      negated = true;
      at++;
    }
    let body = '';
    let members = 0;
    for (;;) {
      let char = chars[at];
      if (char === undefined) return fail('unclosed [');
      if (char === ']' && members > 0) break;
      if (char === '\\') {
        at++;
        char = chars[at];
        if (char === undefined) return fail('\\ at the end of the pattern');
      }
      at++;
      if (chars[at] === '-' && chars[at + 1] !== undefined && chars[at + 1] !== ']') {
        const high = chars[at + 1] ?? '';
        if (high < char) return fail(`range ${char}-${high} runs backwards`);
        body += `${classLiteral(char)}-${classLiteral(high)}`;
        at += 2;
      } else {
        body += classLiteral(char);
      }
      members++;
    }
    at++; // ']'
    return negated ? `[^${body}]` : `[${body}]`;
  };

  // Reads up to the end, or to `,`/`}` inside braces; returns the regex of what it read.
  const sequence = (depth: number): string => {
    let out = '';
    for (;;) {
      const char = chars[at];
      if (char === undefined) {
        if (depth > 0) fail('unclosed {');
        return out;
      }
      if (depth > 0 && (char === ',' || char === '}')) return out;
      if (char === '*') {
        while (chars[at] === '*') at++;
        out += '[\\s\\S]*';
      } else if (char === '?') {
        at++;
        out += '[\\s\\S]';
      } else if (char === '[') {
        out += classAt();
      } else if (char === '{') {
        at++;
        const alternatives = [sequence(depth + 1)];
        while (chars[at] === ',') {
          at++;
          alternatives.push(sequence(depth + 1));
        }
        at++; // '}' (sequence failed on the end of the text)
        out += `(?:${alternatives.join('|')})`;
      } else if (char === '\\') {
        const next = chars[at + 1];
        if (next === undefined) fail('\\ at the end of the pattern');
        out += literal(next ?? '');
        at += 2;
      } else {
        out += literal(char);
        at++;
      }
    }
  };

  return new RegExp(`^(?:${sequence(0)})$`, 'u');
}

/** A matcher of repository-relative paths for one PaC glob; throws PacGlobError when it is not one. */
export function compilePacGlob(glob: string): (path: string) => boolean {
  const regex = pacGlobRegExp(glob);
  return (path) => regex.test(path);
}

/** Whether PaC's `"<glob>".pathChanged()` is true for a change of `path` (throws PacGlobError). */
export function pacGlobMatches(glob: string, path: string): boolean {
  return pacGlobRegExp(glob).test(path);
}
