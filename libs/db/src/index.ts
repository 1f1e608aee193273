export * from './database';
export * from './migrate';
export * from './where';
export { removeLeftoverSockets } from './embedded';
export * from './maintenance';
