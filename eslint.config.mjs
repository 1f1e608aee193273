// Lint rules that keep package boundaries and async code honest (STYLE-EXAMPLES §5, rules 11 and 17).
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/grpc/src/generated/**', '**/*.js', '**/*.mjs', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program over sources and tests (tests are type-checked here, not by the build).
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // Cycles are our code's concern; never parse third-party bundles for them.
    settings: { 'import-x/ignore': ['node_modules'] },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Async methods that fulfil an async contract (a port, a gRPC handler) need not await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // Services import libs through their public entry point, never their sources.
      'no-restricted-imports': ['error', { patterns: ['@vus/*/src/*', '@vus/*/dist/*', '**/libs/*/src/*', '**/services/*/src/*'] }],
      // Configuration is read once, in main.ts or libs/core (STYLE-EXAMPLES §5 rule 11).
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in main.ts through loadConfig.' },
      ],
    },
  },
  {
    // web/: browser code with its own compiler settings (DOM, Preact's JSX, bundler resolution).
    files: ['web/**'],
    languageOptions: { parserOptions: { project: './web/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // libs/media/src/tools.ts: FFMPEG_PATH/FFPROBE_PATH locate binaries like PATH does, and children inherit the environment.
    // libs/models/src/speech/pocketsphinx.ts: pocketsphinx_continuous is found on PATH.
    // libs/testing/src/npm-start.ts: the server it starts inherits the environment, as from a shell.
    // services/embedded/src/telemetry.ts: main.ts's first import, so the SDK starts before what it instruments loads.
    files: [
      '**/src/main.ts',
      'libs/core/src/**',
      '**/src/cli/**',
      '**/test/**',
      'libs/db/src/testing.ts',
      'libs/media/src/tools.ts',
      'libs/models/src/speech/pocketsphinx.ts',
      'libs/testing/src/npm-start.ts',
      'services/embedded/src/telemetry.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
