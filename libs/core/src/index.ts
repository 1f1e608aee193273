export * from './errors';
export * from './ids';
export * from './clock';
export * from './logger';
export * from './config';
export * from './paging';
export * from './validation';
export * from './process';
