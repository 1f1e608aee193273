#!/usr/bin/env node
// Generates TypeScript types for every .proto under proto/ into libs/grpc/src/generated
// with @grpc/proto-loader's own generator. The output is a build artifact (gitignored):
// proto/ stays the single source of truth.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const protoDir = path.join(root, 'proto');
const outDir = path.join(root, 'libs/grpc/src/generated');

function listProtos(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : listProtos(full);
    return entry.name.endsWith('.proto') ? [path.relative(protoDir, full)] : [];
  });
}

const protos = listProtos(protoDir).sort();
fs.rmSync(outDir, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js'),
    '--grpcLib=@grpc/grpc-js',
    '--outDir',
    outDir,
    '--includeDirs',
    protoDir,
    // Must match the loader options in libs/grpc/src/proto.ts.
    '--keepCase',
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--inputTemplate=%s__Input',
    '--outputTemplate=%s',
    ...protos,
  ],
  { stdio: 'inherit', cwd: protoDir },
);
console.log(`generated types for ${protos.length} proto files`);
