export * from './database';
export * from './migrate';
