import { ApiError, parseInput } from '@vus/core';
import type { RequestHandler } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { z } from 'zod';
import { readQuery, scalar } from '../http/query';
import { secretsEqual, type ApiKeyRecord, type Organization } from '../keys';
import type { RouteDeps } from './deps';

const createOrgSchema = z.object({ name: z.string().min(1).max(200) });
const createKeySchema = z.object({ name: z.string().max(200).optional() });

const presentOrg = (org: Organization) => ({ _id: org.id, name: org.name, created_at: org.createdAt.toISOString() });
const presentKey = (key: ApiKeyRecord) => ({
  _id: key.id,
  org_id: key.orgId,
  prefix: key.prefix,
  name: key.name,
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

/** Operator token in `Authorization: Bearer …` or `x-admin-token`, compared in constant time. */
export function requireAdminToken(token: string): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice(7) : req.headers['x-admin-token'];
    if (typeof given !== 'string' || !secretsEqual(given, token)) {
      return next(new ApiError('unauthorized', 'A valid admin token is required.'));
    }
    next();
  };
}

/** Organizations and API keys, for operators and the `keys` CLI. Mounted behind requireAdminToken. */
export function adminEndpoints({ keys }: Pick<RouteDeps, 'keys'>): Endpoint[] {
  return [
    {
      method: 'post',
      path: '/organizations',
      handle: async (req, res) => {
        const org = await keys.createOrganization(parseInput(createOrgSchema, req.body).name);
        res.status(201).json(presentOrg(org));
      },
    },
    {
      method: 'get',
      path: '/organizations',
      handle: async (req, res) => {
        const name = scalar(readQuery(req.originalUrl), 'name');
        const orgs =
          name === undefined ? await keys.listOrganizations() : [await keys.findOrganizationByName(name)].filter((o) => o !== undefined);
        res.json({ data: orgs.map(presentOrg) });
      },
    },
    {
      method: 'post',
      path: '/organizations/:orgId/keys',
      handle: async (req, res) => {
        const input = parseInput(createKeySchema, req.body);
        const { record, secret } = await keys.createKey(String(req.params.orgId), input.name ?? null);
        // The only time the secret is ever shown.
        res.status(201).json({ ...presentKey(record), key: secret });
      },
    },
    {
      method: 'get',
      path: '/organizations/:orgId/keys',
      handle: async (req, res) => {
        res.json({ data: (await keys.listKeys(String(req.params.orgId))).map(presentKey) });
      },
    },
    {
      method: 'delete',
      path: '/keys/:keyId',
      handle: async (req, res) => {
        await keys.revokeKey(String(req.params.keyId));
        res.status(204).end();
      },
    },
  ];
}
