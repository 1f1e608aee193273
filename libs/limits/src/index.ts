export * from './policy';
export * from './counters';
export * from './headers';
export * from './redis';
export * from './plans';
export * from './meter';
