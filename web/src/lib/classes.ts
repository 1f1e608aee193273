/**
 * The classify panel's classes, one a line, as a person types them: `name: prompt, prompt`, or a
 * bare line that is both the name and its one prompt. Blank lines are skipped; a line with a name
 * and no prompt is a problem named by its line number.
 */
export interface ClassInput {
  name: string;
  prompts: string[];
}

export type ParsedClasses = { classes: ClassInput[] } | { problem: string };

export function parseClasses(text: string): ParsedClasses {
  const classes: ClassInput[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = (colon === -1 ? line : line.slice(0, colon)).trim();
    const prompts =
      colon === -1
        ? [line]
        : line
            .slice(colon + 1)
            .split(',')
            .map((prompt) => prompt.trim())
            .filter(Boolean);
    if (name === '') return { problem: `Line ${i + 1} has prompts but no class name before its colon.` };
    if (prompts.length === 0) return { problem: `Line ${i + 1} names the class "${name}" but gives no prompt after its colon.` };
    classes.push({ name, prompts });
  }
  if (classes.length === 0) return { problem: 'Type at least one class: a name, a colon and its prompts (outdoors: a garden, a park).' };
  return { classes };
}
