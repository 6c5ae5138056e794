#!/usr/bin/env node
/**
 * Keeps docs/architecture.md true: fails on code outside src/engines that branches on which engine
 * it is, on an import from a higher layer, and on an import cycle between files.
 *
 *   node scripts/check-architecture.mjs [root]      (npm run check:architecture)
 *
 * Reads src/ and adapters/ under root (the repository by default) with TypeScript's own parser, so
 * that every form of import counts: `import`, `import type`, `export … from`, `import()`,
 * `import('…').T` in a type, `import x = require()` and `require()`. Prints one line per finding,
 * `file:line  rule  what is wrong: what to do`, and exits 1 when there is any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layers, lowest first, as docs/architecture.md describes them: a file may import (types
 * included) only from its own layer or a lower one. The first matching row places a file, so
 * `src/server/os/` is matched before `src/server/`. Reporters sit below runners: a runner prints
 * through a reporter, a reporter never starts a runner.
 */
const LAYERS = [
  { layer: 'base', paths: ['src/util/', 'src/errors.ts', 'src/types.ts', 'src/here.ts', 'src/state.ts', 'src/server/os/'] },
  { layer: 'engines', paths: ['src/engines/'] },
  { layer: 'options', paths: ['src/options/'] },
  { layer: 'server', paths: ['src/server/'] },
  { layer: 'core', paths: ['src/core/'] },
  { layer: 'reporters', paths: ['src/reporters/'] },
  { layer: 'runners', paths: ['src/runners/'] },
  { layer: 'adapters', paths: ['src/adapter-kit.ts', 'adapters/'] },
  { layer: 'cli', paths: ['src/cli/'] },
  // The public facade re-exports from every layer; nothing inside imports it back.
  { layer: 'facade', paths: ['src/index.ts'] },
];

/** Where engine-specific code lives: the only place that may branch on the engine. */
const ENGINES_DIR = 'src/engines/';

/**
 * Findings that stay, each with why it is right where it is. A file and a rule; keep it short.
 */
const ALLOWED = [
  {
    file: 'src/cli/demo.ts',
    rule: 'layer',
    why: "npm start's demonstration of the public API, run by tsx and built into no entry: a script over the facade, as a user's would be, not library code under it",
  },
];

const SCOPE = ['src', 'adapters'];
const SOURCE = /\.(?:c|m)?tsx?$/;

/** Engine names as code spells them, also as URL schemes and Prisma's provider name. */
const ENGINE_LITERAL = /^(?:postgres|postgresql|mysql|mariadb)(?::(?:\/\/)?)?$/;
/** Object keys that make a literal a table keyed by engine name. */
const ENGINE_KEYS = new Set(['postgres', 'postgresql', 'mysql', 'mariadb']);
/** Names that hold an engine name: `engine`, `server.engine`, `otherEngine`, `report.flavor`, an adapter's `family`. */
const ENGINE_NAME = /(?:^|[a-z])(?:engine|Engine|flavor|Flavor|family|Family)$/;
/** Names that hold an engine object, whose `.name` or `.kind` is the engine name. */
const ENGINE_OBJECT = /(?:engine|Engine)$/;
/** What another engine value may be called on the other side of a comparison: `engineOnly`, `requestedFlavor`. */
const ENGINE_VALUE = /engine|flavor|family/i;
/** String methods and lookups that branch when given an engine name. */
const MATCHERS = new Set(['startsWith', 'endsWith', 'includes', 'indexOf', 'has', 'test', 'match']);
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

const ENGINE_FIX = 'ask the engine instead (a role, a capability flag, or a table keyed by engine name in src/engines)';

function main() {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const findings = check(root);
  for (const f of findings) console.log(`${f.file}:${f.line}  ${f.rule}  ${f.message}`);
  if (findings.length) {
    const byRule = new Map();
    for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
    const counts = [...byRule].map(([rule, n]) => `${rule} ${n}`).join(', ');
    console.error(`check-architecture: ${findings.length} finding(s) (${counts}); the layers are in docs/architecture.md`);
    process.exitCode = 1;
  }
}

/** Every finding under root, sorted by file and line. */
function check(root) {
  const files = SCOPE.flatMap((dir) => sourceFiles(root, dir));
  const known = new Set(files);
  const findings = [];
  /** file → (imported file → line of its first import) */
  const graph = new Map();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true, scriptKind(file));
    const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const edges = new Map();
    graph.set(file, edges);
    const from = layerOf(file);
    if (!from)
      findings.push({
        file,
        line: 1,
        rule: 'layer',
        message: 'this file is in no layer: move it into a layer folder, or add it to LAYERS here and to docs/architecture.md',
      });
    for (const { specifier, node } of importsOf(source)) {
      const target = resolveImport(root, file, specifier, known);
      if (!target) continue;
      if (!edges.has(target)) edges.set(target, lineOf(node));
      const to = layerOf(target);
      if (from && to && to.rank > from.rank)
        findings.push({
          file,
          line: lineOf(node),
          rule: 'layer',
          message: `${from.layer} imports ${target} from ${to.layer}, a higher layer: move what both need down, or pass it in from above`,
        });
    }
    if (!file.startsWith(ENGINES_DIR))
      for (const { node, what } of engineBranches(source))
        findings.push({ file, line: lineOf(node), rule: 'engine-branch', message: `${what}: ${ENGINE_FIX}` });
  }
  findings.push(...cycles(graph));
  // Two comparisons on one line (`engine === 'postgres' || engine === 'postgresql'`) are one decision.
  const seen = new Set();
  return findings
    .filter((f) => !ALLOWED.some((a) => a.file === f.file && a.rule === f.rule))
    .filter((f) => {
      const key = `${f.file}:${f.line}:${f.rule}`;
      return !seen.has(key) && seen.add(key);
    })
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule));
}

function sourceFiles(root, dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f).split(sep).join('/'))
    .filter((f) => SOURCE.test(f) && !f.includes('/node_modules/') && statSync(join(root, f)).isFile())
    .sort();
}

function scriptKind(file) {
  return file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
}

function layerOf(file) {
  const rank = LAYERS.findIndex((l) => l.paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  return rank === -1 ? undefined : { rank, layer: LAYERS[rank].layer };
}

/** Every module a file names, in any import form, with the node to report it at. */
function importsOf(source) {
  const found = [];
  const literal = (node) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);
  const add = (specifier, node) => specifier !== undefined && found.push({ specifier, node });
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(literal(node.moduleSpecifier), node);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(literal(node.moduleReference.expression), node);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(literal(node.argument.literal), node);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
        add(literal(node.arguments[0]), node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The scanned file a relative specifier names (`./x.js` is `./x.ts` in source), if any. */
function resolveImport(root, file, specifier, known) {
  if (!specifier.startsWith('.')) return undefined;
  const base = relative(root, resolve(root, dirname(file), specifier))
    .split(sep)
    .join('/');
  const stem = base.replace(/\.(?:c|m)?jsx?$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => known.has(c));
}

/** Where code outside src/engines decides by the engine's name. */
function engineBranches(source) {
  const found = [];
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      if (branches(node.left, node.right) || branches(node.right, node.left)) found.push({ node, what: `\`${excerpt(node, source)}\`` });
    } else if (ts.isSwitchStatement(node)) {
      const cases = node.caseBlock.clauses.filter((c) => ts.isCaseClause(c) && engineLiteral(c.expression));
      for (const c of cases) found.push({ node: c, what: `\`case ${c.expression.getText(source)}\`` });
      if (!cases.length && holdsEngineName(node.expression)) found.push({ node, what: `\`switch (${node.expression.getText(source)})\`` });
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MATCHERS.has(node.expression.name.text)) {
      const receiver = unwrap(node.expression.expression);
      const arrayOfEngines = ts.isArrayLiteralExpression(receiver) && receiver.elements.some(engineLiteral);
      const regexOfEngines = ts.isRegularExpressionLiteral(receiver) && /postgres|mysql|mariadb/i.test(receiver.text);
      if (arrayOfEngines || regexOfEngines || node.arguments.some(engineLiteral))
        found.push({ node, what: `\`${excerpt(node, source)}\` matches an engine name` });
    } else if (ts.isObjectLiteralExpression(node)) {
      const keys = node.properties.filter((p) => p.name && ENGINE_KEYS.has(propertyName(p.name)));
      if (keys.length >= 2) found.push({ node, what: 'a table keyed by engine name, outside src/engines' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether `side <op> other` decides by the engine. */
function branches(side, other) {
  if (engineLiteral(side)) return true;
  // `engine === postgres`, `x === ENGINES.mysql`: an engine object picked out by its name.
  if (ENGINE_KEYS.has(nameOf(unwrap(side)))) return true;
  // `engine !== undefined` asks whether an engine was given, and `s.engine === engine` whether two
  // engines are the same one: neither names an engine, so a new engine changes neither.
  return holdsEngineName(side) && !isNullish(other) && !holdsEngineName(other) && !ENGINE_VALUE.test(nameOf(unwrap(other)) ?? '');
}

/** The code of a finding, cut to fit its line. */
function excerpt(node, source) {
  const text = node.getText(source).replace(/\s+/g, ' ');
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

function unwrap(node) {
  while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
    node = node.expression;
  return node;
}

function engineLiteral(node) {
  const n = node && unwrap(node);
  return Boolean(n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && ENGINE_LITERAL.test(n.text));
}

/** `engine`, `x.engine`, `otherEngine`, `report.flavor`, `engine.name`. */
function holdsEngineName(node) {
  const n = unwrap(node);
  const name = nameOf(n);
  if (name === undefined) return false;
  if (ENGINE_NAME.test(name)) return true;
  if ((name === 'name' || name === 'kind') && (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n))) {
    const owner = nameOf(unwrap(n.expression));
    return owner !== undefined && ENGINE_OBJECT.test(owner);
  }
  return false;
}

function nameOf(node) {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) return node.argumentExpression.text;
  return undefined;
}

function propertyName(name) {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

function isNullish(node) {
  const n = unwrap(node);
  return n.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(n) && n.text === 'undefined');
}

/**
 * One finding per import that closes a cycle: the shortest cycle is reported at its first file's
 * import and that import set aside, until no cycle is left, so that a tangle of files lists the
 * imports that, moved, untangle it.
 */
function cycles(graph) {
  const edges = new Map([...graph].map(([file, to]) => [file, new Map(to)]));
  const findings = [];
  for (;;) {
    const cycle = shortestCycle(edges);
    if (!cycle) return findings;
    const [first, next] = cycle;
    findings.push({
      file: first,
      line: edges.get(first).get(next),
      rule: 'cycle',
      message: `import cycle ${cycle.join(' → ')}: move what they share into a lower file, or pass it in`,
    });
    edges.get(first).delete(next);
  }
}

/** The shortest cycle of the graph (fewest files, then by name), starting at its lowest-named file. */
function shortestCycle(edges) {
  let best;
  for (const start of [...edges.keys()].sort()) {
    // Breadth first from start, only through files named after it, so each cycle is found once, from its lowest file.
    const parent = new Map([[start, undefined]]);
    const queue = [start];
    let closing;
    while (queue.length && !closing) {
      const at = queue.shift();
      for (const to of [...(edges.get(at)?.keys() ?? [])].sort()) {
        if (to === start) {
          closing = at;
          break;
        }
        if (to > start && !parent.has(to)) {
          parent.set(to, at);
          queue.push(to);
        }
      }
    }
    if (!closing) continue;
    const path = [start];
    for (let at = closing; at !== start; at = parent.get(at)) path.splice(1, 0, at);
    path.push(start);
    if (!best || path.length < best.length) best = path;
  }
  return best;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
