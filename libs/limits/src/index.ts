export * from './policy';
export * from './counters';
export * from './headers';
export * from './redis';
