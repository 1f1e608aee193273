/**
 * One route of an Express router: its method (`all` for router.all) and its path pattern. Its own
 * module: the request context records the route (http/context.ts) that the route table finds
 * (http/route-table.ts), and the route table reads the context.
 */
export interface RouteEntry {
  method: string;
  path: string;
}
