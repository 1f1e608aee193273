import express from 'express';
import { appRoutes, routesOf, spellsRoute } from '../src/http/route-table';

describe('spellsRoute', () => {
  it.each([
    ['/tasks', '/tasks', true],
    ['/tasks', '/tasks/', true],
    ['/tasks', '/TASKS', false],
    ['/tasks', '/Tasks/', false],
    ['/tasks', '/tasks//', false],
    ['/tasks/:taskId', '/tasks/6528dde58f9cd95a98cbd075', true],
    ['/tasks/:taskId', '/tasks/ABC', true],
    ['/tasks/:taskId', '/TASKS/abc', false],
    ['/indexes/:indexId/videos/:videoId', '/indexes/a/Videos/b', false],
    ['/indexes/:indexId/videos/:videoId', '/indexes/a/videos/b', true],
    ['/embed/*rest', '/embed/tasks/x', true],
    ['/embed/*rest', '/EMBED/tasks', false],
  ])('%s spelt %s: %s', (pattern, path, expected) => {
    expect(spellsRoute(pattern, path)).toBe(expected);
  });
});

describe('routesOf', () => {
  it('lists routes in the order Express tries them, with paths of arrays and mounted routers', () => {
    const inner = express.Router();
    inner.get('/items/:id', () => undefined);
    const router = express.Router();
    router.post('/tasks', () => undefined);
    router.get(['/search/:token', '/search-v2/:token'], () => undefined);
    router.all('/anything', () => undefined);
    router.use((_req, _res, next) => next());
    router.use(inner);
    router.use('/prefix', inner);
    router.use(['/a', '/b'], inner);
    expect(routesOf(router)).toEqual([
      { method: 'post', path: '/tasks' },
      { method: 'get', path: '/search/:token' },
      { method: 'get', path: '/search-v2/:token' },
      { method: 'all', path: '/anything' },
      { method: 'get', path: '/items/:id' },
      { method: 'get', path: '/prefix/items/:id' },
      { method: 'get', path: '/a/items/:id' },
      { method: 'get', path: '/b/items/:id' },
    ]);
  });

  it("lists an app's endpoints once each, behind their mount paths", () => {
    const api = express.Router();
    api.post('/tasks', () => undefined);
    const app = express();
    app.get('/healthz', () => undefined);
    app.use(['/v1', '/p/v1'], api);
    app.use('/v1', api);
    expect(appRoutes(app)).toEqual([
      { method: 'get', path: '/healthz' },
      { method: 'post', path: '/v1/tasks' },
      { method: 'post', path: '/p/v1/tasks' },
    ]);
  });

  it('refuses what is not a router', () => {
    expect(() => routesOf(() => undefined)).toThrow('not an Express router');
  });
});
