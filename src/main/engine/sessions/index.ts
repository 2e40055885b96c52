export * from './events';
export * from './ids';
export * from './replay';
export * from './store';
