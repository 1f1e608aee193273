import type { EmbedClient } from '@vus/clients';
import type { OutgoingContext } from '@vus/grpc';

/** What the worker asks of embed-service, the model server (the worker loads no embedding model). */
export type ClipVectorClient = Pick<EmbedClient, 'embedQuery'>;

/**
 * One video's clip vectors from embed-service: whether its visual model is there is asked once,
 * then each clip's keyframe is embedded once (analyseFrames calls `embedImage` for the frame that
 * starts each scene). A failure on the way (embed-service down, too slow) stops the embedding
 * for the rest of the video: the video is indexed all the same, without vectors, and `failure`
 * says why (the pipeline records the skipped extractor).
 */
export class VideoClipVectors {
  /** Why the vectors of this video were dropped; undefined while all is well. */
  failure: string | undefined;

  private constructor(
    private readonly client: ClipVectorClient,
    private readonly context: () => OutgoingContext,
    /** The vector model's name, stored with each segment's vector. */
    readonly model: string,
  ) {}

  /**
   * Asks embed-service for its visual model (model name empty: the one search queries with).
   * `skipped` when there is no embed-service, when it has no visual model (the reason is its
   * own: e.g. CLIP missing from MODELS_DIR) or when it does not answer.
   */
  static async open(client: ClipVectorClient | undefined, context: () => OutgoingContext): Promise<VideoClipVectors | { skipped: string }> {
    if (!client) return { skipped: 'no embed-service is configured (EMBED_SERVICE_ADDR)' };
    try {
      const answer = await client.embedQuery(context(), { model_name: '', inputs: [] });
      if (!answer.available) return { skipped: answer.reason || 'embed-service has no visual model loaded' };
      return new VideoClipVectors(client, context, answer.model_name);
    } catch (error) {
      return { skipped: `embed-service did not answer: ${describe(error)}` };
    }
  }

  /** The frame's vector; undefined once a call has failed (the video's vectors are then dropped). */
  async embedImage(jpeg: Buffer): Promise<Float32Array | undefined> {
    if (this.failure !== undefined) return undefined;
    try {
      const answer = await this.client.embedQuery(this.context(), { model_name: this.model, inputs: [{ image: jpeg }] });
      const values = answer.available ? answer.vectors[0]?.values : undefined;
      if (values) return Float32Array.from(values);
      this.failure = answer.reason || 'embed-service returned no vector';
    } catch (error) {
      this.failure = `embed-service failed while embedding the clips: ${describe(error)}`;
    }
    return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
