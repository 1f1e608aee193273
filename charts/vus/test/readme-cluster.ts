/**
 * The README's cluster-mode section as data: what every process reads (the preamble), one entry per
 * process (its bold name and text), and the command each starts with. readme-cluster.test checks it
 * against the processes' schemas; cluster.e2e starts the processes from it, so neither can drift from
 * what a new operator reads.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

/** The README's bold entry name of the indexing worker (the other entries are the registry's service names). */
export const WORKER = 'the indexing worker';

export interface ClusterSection {
  /** The text before the first entry: what every process reads, and how each starts. */
  preamble: string;
  /** Each process's entry text, by its bold name. */
  entries: Map<string, string>;
}

/** The cluster-mode section of a README text: its preamble and one entry per process. */
export function clusterSection(readme: string): ClusterSection {
  const start = readme.indexOf('## Running as separate services (cluster mode)');
  if (start === -1) throw new Error('README has no "Running as separate services (cluster mode)" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const firstEntry = section.search(/^- \*\*/m);
  const entries = new Map<string, string>();
  for (const match of section.slice(firstEntry).matchAll(/^- \*\*([^*]+)\*\*([\s\S]*?)(?=^- \*\*|^\S)/gm)) {
    entries.set(match[1]!, match[2]!);
  }
  return { preamble: section.slice(0, firstEntry), entries };
}

/** This repository's README, parsed. */
export function readmeClusterSection(): ClusterSection {
  return clusterSection(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
}

/** The variable names a text names: backticked upper-case words (`INDEX_SERVICE_ADDR`, `HOST=0.0.0.0`). */
export function variablesNamed(text: string): Set<string> {
  return new Set([...text.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((match) => match[1]!));
}

/** Every variable the README names for a process: the preamble's and its entry's. */
export function variablesOf(section: ClusterSection, name: string): Set<string> {
  const entry = section.entries.get(name);
  if (entry === undefined) throw new Error(`README's cluster-mode section has no entry for ${name}`);
  return new Set([...variablesNamed(section.preamble), ...variablesNamed(entry)]);
}

/**
 * The command a process starts with, as `node` and its arguments: the entry's own backticked
 * `node …` command (the worker's), else the preamble's `node services/<name>/dist/main.js` for its name.
 */
export function commandOf(section: ClusterSection, name: string): string[] {
  const entry = section.entries.get(name);
  if (entry === undefined) throw new Error(`README's cluster-mode section has no entry for ${name}`);
  const own = /`(node [^`]+)`/.exec(entry)?.[1];
  const template = /`(node [^`]*<name>[^`]*)`/.exec(section.preamble)?.[1];
  const command = own ?? template?.replace('<name>', name);
  if (!command) throw new Error(`README's cluster-mode section says no command for ${name}`);
  return command.split(/\s+/);
}
