export * from './bus';
export * from './topics';
export * from './in-process';
export * from './kafka';
export * from './outbox';
export * from './idempotent';
export * from './payloads';
export * from './consumers';
