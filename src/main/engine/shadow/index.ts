export { ShadowRepo, type ShadowRepoOptions, type WarmBase } from './ShadowRepo';
export type { RestorePlan, RestoreStep } from './restore';
export type { SnapshotProgress } from './snapshot';
export { DEFAULT_SIZE_CAP } from './snapshot';
