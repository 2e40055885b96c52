/** Shared test helpers (owned by engineer F; see docs/reliability.md). Import from 'test/helpers'. */
export * from './tmp';
export * from './prng';
export * from './checksum';
export * from './workspace';
export * from './cli';
export * from './shadow';
export * from './clone';
export * from './eventually';
export * from './failure';
export * from './bulkLogs';
export * from './fullScan';
