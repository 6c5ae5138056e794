/**
 * A unified diff of one file's old and new text, as `diff -u` prints it, so that what init writes can
 * be read (and applied with `patch -p1`) before anything is written. Files init touches are a few
 * hundred lines at most: a plain LCS table is fast enough and needs no dependency.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

function ops(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push({ kind: '-', line: a[i++]! });
    else out.push({ kind: '+', line: b[j++]! });
  }
  return out;
}

const lines = (text: string | undefined): string[] => (text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** `old` undefined: a new file (`--- /dev/null`); `context`: unchanged lines shown around each change. */
export function unifiedDiff(path: string, old: string | undefined, next: string, context = 3): string {
  const all = ops(lines(old), lines(next));
  const changed = all.map((o, k) => (o.kind !== ' ' ? k : -1)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  const head = [`--- ${old === undefined ? '/dev/null' : `a/${path}`}`, `+++ b/${path}`];
  // Hunks: runs of changes whose context overlaps.
  const hunks: Array<[number, number]> = [];
  for (const k of changed) {
    const last = hunks[hunks.length - 1];
    if (last && k - last[1] <= 2 * context) last[1] = k;
    else hunks.push([k, k]);
  }
  const body: string[] = [];
  for (const [from, to] of hunks) {
    const start = Math.max(0, from - context);
    const end = Math.min(all.length - 1, to + context);
    // Line numbers of the hunk's first line in the old and the new text.
    let oldLine = 1;
    let newLine = 1;
    for (let k = 0; k < start; k++) {
      if (all[k]!.kind !== '+') oldLine++;
      if (all[k]!.kind !== '-') newLine++;
    }
    const slice = all.slice(start, end + 1);
    const oldCount = slice.filter((o) => o.kind !== '+').length;
    const newCount = slice.filter((o) => o.kind !== '-').length;
    body.push(`@@ -${oldCount ? oldLine : oldLine - 1},${oldCount} +${newCount ? newLine : newLine - 1},${newCount} @@`);
    for (const o of slice) body.push(`${o.kind}${o.line}`);
  }
  return [...head, ...body].join('\n') + '\n';
}

/** Lines a diff adds and removes, blank ones not counted (as docs/adopting.md counts adoption). */
export function changedLines(diff: string): number {
  return diff.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l) && l.slice(1).trim() !== '').length;
}
