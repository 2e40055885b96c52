import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'bench/results/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Layers: the engine is plain Node; only src/main/electron may import electron; the renderer never reaches main.
  {
    files: [
      'src/main/engine/**/*.ts',
      'src/main/cli/**/*.ts',
      'src/main/serve/**/*.ts',
      'src/main/integrations/**/*.ts',
      'src/main/service.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', 'react', 'react-dom', '**/electron/**', '**/renderer/**'] },
      ],
    },
  },
  {
    files: ['src/main/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'electron',
            'react',
            '**/serve/**',
            '**/cli/**',
            '**/electron/**',
            '**/integrations/**',
            '**/service',
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { patterns: ['electron', 'node:*', '**/main/**', '**/preload/**'] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['electron', 'react', 'node:*', '**/main/**', '**/renderer/**'] }],
    },
  },
);
