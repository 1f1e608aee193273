import { createReadStream } from 'node:fs';
import type { TwelveLabs } from 'twelvelabs-js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An asset uploaded directly through the SDK, once task-service has sniffed and probed it: its id. */
export async function readyAsset(client: TwelveLabs, path: string): Promise<string> {
  const created = await client.assets.create({ method: 'direct', file: createReadStream(path) });
  for (;;) {
    const asset = await client.assets.retrieve(created.id!);
    if (asset.status === 'ready') return asset.id!;
    if (asset.status === 'failed') throw new Error(`asset ${asset.id} failed`);
    await sleep(200);
  }
}
