/**
 * Node module hook for the smoke test: `import … from 'electron'` resolves to the RECORDING STAND-IN
 * (electronStandIn.ts) instead of the npm package, whose index.js only exports the binary's path.
 */
const STAND_IN = new URL('./electronStandIn.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  // Resolved by the next hook (tsx's), which then also compiles the TypeScript.
  if (specifier === 'electron' || specifier === 'electron/main') return next(STAND_IN, context);
  return next(specifier, context);
}
