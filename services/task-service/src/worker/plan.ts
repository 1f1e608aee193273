import type { Index } from '@vus/grpc/types/index/v1/Index';

/** Which extractors an index's engines ask for (canonical options of index.proto). */
export interface ExtractorPlan {
  visual: boolean;
  conversation: boolean;
  textInVideo: boolean;
  logo: boolean;
  /** The index has the thumbnail addon. */
  thumbnails: boolean;
  /** Only conversation is indexed: a video without audio has nothing to index. */
  requiresAudio: boolean;
}

export function planExtractors(index: Pick<Index, 'models' | 'addons'>): ExtractorPlan {
  const options = new Set(index.models.flatMap((m) => m.options));
  return {
    visual: options.has('visual'),
    conversation: options.has('conversation'),
    textInVideo: options.has('text_in_video'),
    logo: options.has('logo'),
    thumbnails: index.addons.includes('thumbnail'),
    requiresAudio: options.size > 0 && [...options].every((o) => o === 'conversation'),
  };
}
