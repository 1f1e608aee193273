import { join } from 'node:path';
import {
  chooseMediaTool,
  configureMediaTools,
  mediaToolPackage,
  mediaToolsReport,
  runFfmpeg,
  type MediaTool,
  type ToolLookup,
} from '@vus/media';
import { hlsArguments } from '../src/hls';
import { parseToolVersion } from '../src/tools';

/** A lookup over a fake machine: which packages are installed and which files may be run. */
function lookup(options: {
  env?: Record<string, string>;
  platform?: string;
  arch?: string;
  packages?: string[];
  executable?: string[];
}): ToolLookup {
  return {
    env: options.env ?? {},
    platform: options.platform ?? 'linux',
    arch: options.arch ?? 'x64',
    packageDir: (name) => ((options.packages ?? []).includes(name) ? join('/nm', name) : undefined),
    isExecutable: (path) => (options.executable ?? []).includes(path),
  };
}

describe('chooseMediaTool', () => {
  it.each<[string, MediaTool, Parameters<typeof lookup>[0], { path: string; source: string; env?: Record<string, string> }]>([
    [
      'FFMPEG_PATH wins over everything',
      'ffmpeg',
      {
        env: { FFMPEG_PATH: '/opt/ff/ffmpeg' },
        packages: ['@ffmpeg-installer/linux-x64'],
        executable: ['/nm/@ffmpeg-installer/linux-x64/ffmpeg'],
      },
      { path: '/opt/ff/ffmpeg', source: 'env' },
    ],
    [
      "FFPROBE_PATH is ffprobe's variable",
      'ffprobe',
      { env: { FFPROBE_PATH: '/x/ffprobe', FFMPEG_PATH: '/y/ffmpeg' } },
      { path: '/x/ffprobe', source: 'env' },
    ],
    ['a blank variable is ignored', 'ffmpeg', { env: { FFMPEG_PATH: '  ' } }, { path: 'ffmpeg', source: 'path' }],
    [
      'the platform package next',
      'ffprobe',
      { packages: ['@ffprobe-installer/linux-x64'], executable: ['/nm/@ffprobe-installer/linux-x64/ffprobe'] },
      { path: '/nm/@ffprobe-installer/linux-x64/ffprobe', source: 'package', env: { GCONV_PATH: '/nm/@ffprobe-installer/linux-x64' } },
    ],
    [
      'Windows binaries end in .exe',
      'ffmpeg',
      { platform: 'win32', packages: ['@ffmpeg-installer/win32-x64'], executable: [join('/nm/@ffmpeg-installer/win32-x64', 'ffmpeg.exe')] },
      { path: join('/nm/@ffmpeg-installer/win32-x64', 'ffmpeg.exe'), source: 'package' },
    ],
    [
      'a package whose binary cannot be run falls through to PATH',
      'ffmpeg',
      { packages: ['@ffmpeg-installer/linux-x64'] },
      { path: 'ffmpeg', source: 'path' },
    ],
    [
      "another platform's package is not used",
      'ffmpeg',
      { arch: 'arm64', packages: ['@ffmpeg-installer/linux-x64'], executable: ['/nm/@ffmpeg-installer/linux-x64/ffmpeg'] },
      { path: 'ffmpeg', source: 'path' },
    ],
    ['PATH when nothing else is there', 'ffprobe', {}, { path: 'ffprobe', source: 'path' }],
  ])('%s', (_name, tool, machine, expected) => {
    expect(chooseMediaTool(tool, lookup(machine))).toMatchObject({ tool, ...expected });
  });

  it('knows no package for a platform none is published for', () => {
    expect(mediaToolPackage('ffmpeg', 'freebsd', 'x64')).toBeUndefined();
    expect(mediaToolPackage('ffprobe', 'darwin', 'arm64')).toEqual({ name: '@ffprobe-installer/darwin-arm64', binary: 'ffprobe' });
  });
});

describe('parseToolVersion', () => {
  it.each([
    ['ffmpeg version 5.1.6-0+deb12u1 Copyright (c) 2000-2024 the FFmpeg developers\nbuilt with gcc', '5.1.6-0+deb12u1'],
    ['ffprobe version N-66595-gc2b38619c0-static https://johnvansickle.com/ffmpeg/  Copyright', 'N-66595-gc2b38619c0-static'],
    ['something else entirely', undefined],
  ])('%j', (output, expected) => {
    expect(parseToolVersion(output)).toBe(expected);
  });
});

describe('hlsArguments frame rate', () => {
  const encode = { video: 'encode', audio: 'none' } as const;
  const filterOf = (fps: number) => {
    const args = hlsArguments('in.mp4', '/out', encode, { demuxer: 'mov', video: { fps } });
    return args[args.indexOf('-vf') + 1];
  };

  it('thins a source faster than 60 fps with the fps filter (no -fpsmax, which ffmpeg < 4.3 lacks)', () => {
    expect(filterOf(120)).toMatch(/^fps=60,scale=/);
    expect(filterOf(59.94)).toMatch(/^scale=/);
    expect(hlsArguments('in.mp4', '/out', encode, { demuxer: 'mov', video: { fps: 120 } })).not.toContain('-fpsmax');
  });
});

describe('a tool that cannot be run', () => {
  // This test file's own module instance: the override does not reach other suites.
  beforeAll(() => configureMediaTools({ ffmpeg: '/nonexistent/vus-test/ffmpeg' }));

  it('fails with tool_missing (503), naming where it looked but not the path', async () => {
    const error = await runFfmpeg(['-version']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      failure: 'tool_missing',
      code: 'service_unavailable',
      message: 'ffmpeg is not available (looked in FFMPEG_PATH): run npm install, or set FFMPEG_PATH.',
    });
  });

  it('makes the start-up report fail the same way', async () => {
    await expect(mediaToolsReport()).rejects.toMatchObject({ failure: 'tool_missing' });
  });
});
