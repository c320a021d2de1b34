// Lint rules for the TypeScript sources and scripts: `npm run lint` (part of `npm test`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'types/vendor/**', '.stack/**', 'bench/data/**', 'test-output/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      'no-console': ['error', { allow: ['table'] }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The console page runs in a browser.
    files: ['cli/console/static/**'],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', window: 'readonly', Node: 'readonly', EventSource: 'readonly', fetch: 'readonly' } },
  },
  {
    // Scripts and benchmarks print their results; the browser console page runs in a browser.
    files: ['scripts/**', 'bench/**', 'examples/**'],
    rules: { 'no-console': 'off' },
  },
);
