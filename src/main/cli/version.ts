/** The version `retrace --version` prints: package.json's, put in by the CLI's build (scripts/build-cli.mjs). */
declare const __RETRACE_VERSION__: string | undefined;
export const VERSION: string = typeof __RETRACE_VERSION__ === 'string' ? __RETRACE_VERSION__ : 'dev';
