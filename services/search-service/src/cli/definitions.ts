/**
 * `npm run definitions -w @vus/search-service` (part of `npm run build`): writes the bundled
 * WordNet's definitions index (definitions.ts) to dist/, so that search-service reads it in a few
 * ms instead of making the pass when its first query comes.
 */
import { writeFileSync, renameSync } from 'node:fs';
import { openWordNet } from '@vus/wordnet';
import { bundledDefinitions, indexDefinitions } from '../definitions';

async function main(): Promise<void> {
  const { file, source } = bundledDefinitions();
  const wordnet = openWordNet();
  try {
    const index = await indexDefinitions(wordnet, source);
    // Whole or not at all: a server reading it meanwhile sees the old file or the new one.
    writeFileSync(`${file}.tmp`, JSON.stringify(index));
    renameSync(`${file}.tmp`, file);
    console.log(`definitions: ${index.nouns.length} nouns, ${index.definedWith.length} defining words from ${source}`);
  } finally {
    wordnet.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
