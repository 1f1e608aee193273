import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeLeftoversOf, sweepWorkRoot, taskIdOfWorkDir } from '../src/worker/work-dir';

const TASK = '6528dde58f9cd95a98cbd075';
const OTHER = '6528dde58f9cd95a98cbd076';

describe('taskIdOfWorkDir', () => {
  it.each([
    [`task-${TASK}-a1B2c3`, TASK],
    [`task-${TASK}-`, undefined],
    [`task-${TASK}`, undefined],
    ['hls', undefined],
    [`media-${TASK}-x`, undefined],
  ])('%s → %s', (name, expected) => {
    expect(taskIdOfWorkDir(name)).toBe(expected);
  });
});

describe('scratch folders left in WORK_DIR', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'vus-work-dir-'));
    for (const name of [`task-${TASK}-dead01`, `task-${TASK}-dead02`, `task-${OTHER}-live01`]) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'media'), 'a copy of the upload');
    }
    // Not a task's folder: left alone.
    writeFileSync(join(root, `task-${TASK}-file`), '');
    mkdirSync(join(root, 'vus-models-cache'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("the claim that takes a task over removes that task's leftovers, and only those", async () => {
    expect((await removeLeftoversOf(root, TASK)).sort()).toEqual([`task-${TASK}-dead01`, `task-${TASK}-dead02`]);
    expect(readdirSync(root).sort()).toEqual([`task-${TASK}-file`, `task-${OTHER}-live01`, 'vus-models-cache']);
    expect(await removeLeftoversOf(root, TASK)).toEqual([]);
  });

  it.each([
    ['both unfinished', [TASK, OTHER], []],
    ['one finished or deleted', [OTHER], [`task-${TASK}-dead01`, `task-${TASK}-dead02`]],
    ['none unfinished', [], [`task-${TASK}-dead01`, `task-${TASK}-dead02`, `task-${OTHER}-live01`]],
  ])('a starting worker sweeps the folders of tasks that are not unfinished (%s)', async (_, unfinished, swept) => {
    const asked: string[][] = [];
    const result = await sweepWorkRoot(root, async (ids) => {
      asked.push([...ids].sort());
      return new Set(unfinished);
    });
    expect(result.sort()).toEqual(swept);
    expect(asked).toEqual([[TASK, OTHER].sort()]);
  });

  it('sweeps nothing, and asks nothing, when the work root is empty or missing', async () => {
    const ask = jest.fn();
    expect(await sweepWorkRoot(join(root, 'missing'), ask)).toEqual([]);
    expect(ask).not.toHaveBeenCalled();
  });
});
