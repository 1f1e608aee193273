export * from './bus';
export * from './topics';
export * from './in-process';
export * from './outbox';
