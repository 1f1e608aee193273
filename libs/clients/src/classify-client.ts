import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { ClassifyBulkRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyBulkRequest';
import type { ClassifyRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyRequest';
import type { ClassifyResultPage } from '@vus/grpc/types/classify/v1/ClassifyResultPage';
import type { ClassifyServiceClient } from '@vus/grpc/types/classify/v1/ClassifyService';

/** classify-service: classifications of videos or a whole index, and their pages. */
export function createClassifyClient(address: string) {
  const client = createServiceClient<ClassifyServiceClient>('classify-service', address);
  return {
    classify: (ctx: OutgoingContext, request: ClassifyRequest__Input) =>
      callUnary<ClassifyResultPage>((md, opts, cb) => client.Classify(request, md, opts, cb), ctx),
    classifyBulk: (ctx: OutgoingContext, request: ClassifyBulkRequest__Input) =>
      callUnary<ClassifyResultPage>((md, opts, cb) => client.ClassifyBulk(request, md, opts, cb), ctx),
    getClassifyPage: (ctx: OutgoingContext, pageToken: string) =>
      callUnary<ClassifyResultPage>((md, opts, cb) => client.GetClassifyPage({ page_token: pageToken }, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type ClassifyClient = ReturnType<typeof createClassifyClient>;
