import type { Database } from '@vus/db';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * WORK_DIR holds one scratch folder per claim of a task, `task-<id>-<random>` (mkdtemp): a copy of
 * the upload, frames, audio. A claim removes its own when it ends; a worker that dies leaves it
 * behind. The claim that takes the task over removes those leftovers, and a starting worker sweeps
 * those of tasks that are finished or gone (nothing will take them over).
 */
export function taskIdOfWorkDir(name: string): string | undefined {
  return /^task-([0-9a-zA-Z]+)-[^/]+$/.exec(name)?.[1];
}

/** The scratch folders of earlier claims of this task, removed; their names. */
export async function removeLeftoversOf(workRoot: string, taskId: string): Promise<string[]> {
  const leftovers = (await taskDirs(workRoot)).filter((dir) => dir.taskId === taskId).map((dir) => dir.name);
  await Promise.all(leftovers.map((name) => rm(join(workRoot, name), { recursive: true, force: true })));
  return leftovers;
}

/**
 * Removes the scratch folders of tasks that are not unfinished (ready, failed, deleted); their names.
 * Unfinished tasks' folders stay even when no one runs them: WORK_DIR may be shared by live workers,
 * and whoever takes such a task over removes them.
 */
export async function sweepWorkRoot(workRoot: string, unfinished: (taskIds: string[]) => Promise<Set<string>>): Promise<string[]> {
  const dirs = await taskDirs(workRoot);
  if (dirs.length === 0) return [];
  const keep = await unfinished([...new Set(dirs.map((dir) => dir.taskId))]);
  const swept = dirs.filter((dir) => !keep.has(dir.taskId)).map((dir) => dir.name);
  await Promise.all(swept.map((name) => rm(join(workRoot, name), { recursive: true, force: true })));
  return swept;
}

/** The tasks among these that are not finished (neither ready nor failed) and not deleted. */
export function unfinishedTasksOf(db: Database): (taskIds: string[]) => Promise<Set<string>> {
  return async (taskIds) => {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM tasks WHERE id = ANY($1::text[]) AND status NOT IN ('ready', 'failed')`,
      [taskIds],
    );
    return new Set(rows.map((row) => row.id));
  };
}

async function taskDirs(workRoot: string): Promise<{ name: string; taskId: string }[]> {
  const entries = await readdir(workRoot, { withFileTypes: true }).catch(() => []);
  return entries.flatMap((entry) => {
    const taskId = entry.isDirectory() ? taskIdOfWorkDir(entry.name) : undefined;
    return taskId ? [{ name: entry.name, taskId }] : [];
  });
}
