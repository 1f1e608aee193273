import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';

export type MediaTool = 'ffmpeg' | 'ffprobe';

/** Where a tool's binary came from: an environment variable, a registry package, or the system PATH. */
export type MediaToolSource = 'env' | 'package' | 'path';

export interface ResolvedMediaTool {
  tool: MediaTool;
  /** What is spawned: an absolute path, or the bare name for a PATH lookup. */
  path: string;
  source: MediaToolSource;
  /** For `package`: the package that ships the binary (`@ffmpeg-installer/linux-x64`). */
  packageName?: string;
  /** Environment variables the binary needs on top of the process's. */
  env?: Readonly<Record<string, string>>;
}

/** The environment variable that names each tool's binary. */
export const MEDIA_TOOL_ENV: Readonly<Record<MediaTool, string>> = { ffmpeg: 'FFMPEG_PATH', ffprobe: 'FFPROBE_PATH' };

/**
 * The registry package that ships a static binary for this platform, or undefined where none
 * exists. `@ffmpeg-installer/<platform>-<arch>` and `@ffprobe-installer/<platform>-<arch>` carry the
 * binary inside their tarball (nothing is downloaded at install), so `npm install` alone brings
 * working tools; they are optional dependencies of @vus/media, so npm installs only this machine's.
 */
export function mediaToolPackage(tool: MediaTool, platform: string, arch: string): { name: string; binary: string } | undefined {
  const target = `${platform}-${arch}`;
  if (!SHIPPED_TARGETS.has(target)) return undefined;
  return { name: `@${tool}-installer/${target}`, binary: platform === 'win32' ? `${tool}.exe` : tool };
}

const SHIPPED_TARGETS = new Set([
  'linux-x64',
  'linux-arm64',
  'linux-arm',
  'linux-ia32',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64',
  'win32-ia32',
]);

export interface ToolLookup {
  env: Readonly<Record<string, string | undefined>>;
  platform: string;
  arch: string;
  /** The folder of an installed package, or undefined when it is not installed. */
  packageDir(name: string): string | undefined;
  /** Whether the file exists and may be executed. */
  isExecutable(path: string): boolean;
}

/**
 * Which binary to run (pure over `lookup`): `FFMPEG_PATH`/`FFPROBE_PATH` when set, then the
 * binary from this platform's registry package, then the bare name for the system PATH.
 */
export function chooseMediaTool(tool: MediaTool, lookup: ToolLookup): ResolvedMediaTool {
  const fromEnv = lookup.env[MEDIA_TOOL_ENV[tool]]?.trim();
  if (fromEnv) return { tool, path: fromEnv, source: 'env' };
  const shipped = mediaToolPackage(tool, lookup.platform, lookup.arch);
  const dir = shipped && lookup.packageDir(shipped.name);
  if (shipped && dir) {
    const path = join(dir, shipped.binary);
    // The packaged builds link glibc statically: their iconv would load the OS's gconv modules,
    // built for another glibc, and crash (ffprobe segfaults on every MPEG-TS file, whose service
    // names it converts). A GCONV_PATH without modules makes iconv fail cleanly instead.
    if (lookup.isExecutable(path)) return { tool, path, source: 'package', packageName: shipped.name, env: { GCONV_PATH: dir } };
  }
  return { tool, path: tool, source: 'path' };
}

/** The lookup of this process: its environment, platform, installed packages and files. */
export function processToolLookup(env: Readonly<Record<string, string | undefined>> = process.env): ToolLookup {
  return {
    env,
    platform: process.platform,
    arch: process.arch,
    packageDir(name) {
      try {
        return dirname(require.resolve(`${name}/package.json`));
      } catch {
        return undefined;
      }
    },
    isExecutable(path) {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The environment to spawn a resolved tool with (the process's, plus what the tool needs). */
export function toolEnv(resolved: ResolvedMediaTool): NodeJS.ProcessEnv {
  return resolved.env ? { ...process.env, ...resolved.env } : process.env;
}

/** How a tool's origin reads in logs and errors (never an absolute path). */
export function describeSource(resolved: ResolvedMediaTool): string {
  if (resolved.source === 'env') return MEDIA_TOOL_ENV[resolved.tool];
  if (resolved.source === 'package') return `npm package ${resolved.packageName}`;
  return 'the system PATH';
}

/** The first line of `-version` (`ffmpeg version 5.1.6-0+deb12u1 …`) reduced to the version itself. */
export function parseToolVersion(output: string): string | undefined {
  const match = /^ff(?:mpeg|probe) version (\S+)/m.exec(output);
  return match?.[1];
}

/**
 * Asks a resolved binary for its version (`5.1.6-0+deb12u1`, `N-47683-g0e8eb07980-static`);
 * rejects when it cannot be run.
 */
export function toolVersion(resolved: ResolvedMediaTool, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const options = { timeout: timeoutMs, maxBuffer: 1024 * 1024, env: toolEnv(resolved) };
    execFile(resolved.path, ['-hide_banner', '-version'], options, (error, stdout) => {
      if (error) {
        reject(
          new Error(
            `${resolved.tool} from ${describeSource(resolved)} cannot be run: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          ),
        );
        return;
      }
      resolve(parseToolVersion(stdout) ?? 'unknown version');
    });
  });
}
