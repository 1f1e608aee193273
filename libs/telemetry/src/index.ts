export * from './trace-context';
export * from './spans';
export * from './metrics';
