export * from './proto';
export * from './errors';
export * from './context';
export * from './server';
export * from './client';
export * from './timestamps';
export * from './metadata-values';
export * from './internal-auth';
