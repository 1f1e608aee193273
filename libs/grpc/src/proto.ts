import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ProtoGrpcType as AnalyzeProto } from './generated/analyze';
import type { ProtoGrpcType as BillingProto } from './generated/billing';
import type { ProtoGrpcType as ClassifyProto } from './generated/classify';
import type { ProtoGrpcType as EmbedProto } from './generated/embed';
import type { ProtoGrpcType as IndexProto } from './generated/index';
import type { ProtoGrpcType as SearchProto } from './generated/search';
import type { ProtoGrpcType as TaskProto } from './generated/task';

/** The folder of the @vus/proto package: the one copy of the contract. */
export const PROTO_ROOT = dirname(require.resolve('@vus/proto/package.json'));

// Keep in step with the flags in scripts/gen-proto-types.js: the generated types describe
// objects shaped by exactly these options.
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

/** The whole contract: one loaded package tree typed by every generated root. */
export type VusProto = IndexProto & TaskProto & SearchProto & ClassifyProto & AnalyzeProto & EmbedProto & BillingProto;

function listProtoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : listProtoFiles(full);
    return entry.name.endsWith('.proto') ? [relative(PROTO_ROOT, full)] : [];
  });
}

let loaded: { proto: VusProto; packageDefinition: protoLoader.PackageDefinition } | undefined;

/** Loads every .proto of the contract once per process. */
export function loadProto(): { proto: VusProto; packageDefinition: protoLoader.PackageDefinition } {
  if (!loaded) {
    const packageDefinition = protoLoader.loadSync(listProtoFiles(PROTO_ROOT).sort(), LOADER_OPTIONS);
    const proto = grpc.loadPackageDefinition(packageDefinition) as unknown as VusProto;
    loaded = { proto, packageDefinition };
  }
  return loaded;
}
