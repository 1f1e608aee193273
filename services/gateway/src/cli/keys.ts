/**
 * `npm run keys -- <command>`: manages organizations and API keys through the admin API of a
 * running server. Finds the server from VUS_URL + VUS_ADMIN_TOKEN, or from the state file that
 * embedded mode writes into DATA_DIR (default ./.data).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --org NAME [--name LABEL]   create a key for organization NAME (created if missing); prints the key
  list --org NAME                    list the keys of an organization (never the secrets)
  revoke KEY_ID                      revoke a key
  orgs                               list organizations

Server: VUS_URL and VUS_ADMIN_TOKEN, or the embedded server's state in DATA_DIR (default ./.data).`;

interface Target {
  baseUrl: string;
  token: string;
}

function findTarget(env: NodeJS.ProcessEnv): Target {
  // Empty means unset, as everywhere else in our configuration.
  const adminToken = env.VUS_ADMIN_TOKEN || undefined;
  if (env.VUS_URL) {
    if (!adminToken) throw new Error('VUS_URL is set but VUS_ADMIN_TOKEN is not.');
    return { baseUrl: env.VUS_URL.replace(/\/+$/, ''), token: adminToken };
  }
  const stateFile = join(resolve(env.DATA_DIR || './.data'), 'embedded.json');
  if (!existsSync(stateFile)) {
    throw new Error(
      `No running embedded server found (${stateFile} is missing). Start one with \`npm start\`, or set VUS_URL and VUS_ADMIN_TOKEN.`,
    );
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { base_url: string; admin_token: string };
  return { baseUrl: state.base_url, token: adminToken ?? state.admin_token };
}

async function call<T>(target: Target, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${target.baseUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : null,
  });
  if (response.status === 204) return undefined as T;
  const payload = (await response.json().catch(() => ({}))) as T & { code?: string; message?: string };
  if (!response.ok) throw new Error(`${response.status} ${payload.code ?? ''}: ${payload.message ?? response.statusText}`);
  return payload;
}

interface Org {
  _id: string;
  name: string;
}

async function orgByName(target: Target, name: string, create: boolean): Promise<Org> {
  const found = await call<{ data: Org[] }>(target, 'GET', `/organizations?name=${encodeURIComponent(name)}`);
  if (found.data[0]) return found.data[0];
  if (!create) throw new Error(`No organization named "${name}".`);
  return call<Org>(target, 'POST', '/organizations', { name });
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { org: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) return USAGE;
  const target = findTarget(env);
  switch (command) {
    case 'create': {
      if (!values.org) throw new Error('create needs --org NAME');
      const org = await orgByName(target, values.org, true);
      const key = await call<{ key: string }>(target, 'POST', `/organizations/${org._id}/keys`, { name: values.name });
      return key.key;
    }
    case 'list': {
      if (!values.org) throw new Error('list needs --org NAME');
      const org = await orgByName(target, values.org, false);
      const keys = await call<{
        data: { _id: string; prefix: string; name: string | null; created_at: string; revoked_at: string | null }[];
      }>(target, 'GET', `/organizations/${org._id}/keys`);
      return keys.data
        .map((k) => `${k._id}  ${k.prefix}…  ${k.created_at}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}  ${k.name ?? ''}`)
        .join('\n');
    }
    case 'revoke': {
      if (!rest[0]) throw new Error('revoke needs KEY_ID');
      await call(target, 'DELETE', `/keys/${encodeURIComponent(rest[0])}`);
      return `revoked ${rest[0]}`;
    }
    case 'orgs': {
      const orgs = await call<{ data: Org[] }>(target, 'GET', '/organizations');
      return orgs.data.map((o) => `${o._id}  ${o.name}`).join('\n');
    }
    default:
      throw new Error(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (output) => {
      if (output) process.stdout.write(`${output}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`keys: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
