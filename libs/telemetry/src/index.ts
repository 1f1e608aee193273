export * from './trace-context';
export * from './spans';
