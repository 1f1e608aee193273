import type * as tfType from '@tensorflow/tfjs';
import { blazeFaceAnyShape } from '../src/vision/blazeface';
import { graphModelFrom, humanModelsDir, readGraphModel, tensorflow } from '../src/vision/tfjs';

describe('BlazeFace on any input size (blazeFaceAnyShape)', () => {
  it('answers a 256 × 256 input exactly as the published graph, and a 256 × 160 one with its 560 anchors', async () => {
    const tf = await tensorflow();
    const artifacts = await readGraphModel(humanModelsDir(), 'blazeface');
    const [published, anyShape] = await Promise.all([graphModelFrom(artifacts), graphModelFrom(blazeFaceAnyShape(artifacts))]);
    const square = tf.randomUniform([1, 256, 256, 3], -1, 1, 'float32', 7);
    const expected = published.execute(square) as tfType.Tensor[];
    const found = anyShape.execute(square) as tfType.Tensor[];
    expect(found.map((t) => t.shape)).toEqual(expected.map((t) => t.shape));
    for (const [i, tensor] of found.entries()) expect(Array.from(await tensor.data())).toEqual(Array.from(await expected[i]!.data()));
    const wide = tf.randomUniform([1, 160, 256, 3], -1, 1, 'float32', 7);
    const wideOutputs = anyShape.execute(wide) as tfType.Tensor[];
    expect(wideOutputs.map((t) => t.shape[1]).sort((a, b) => a! - b!)).toEqual([240, 240, 320, 320]);
    tf.dispose([square, wide, ...expected, ...found, ...wideOutputs]);
    published.dispose();
    anyShape.dispose();
  });
});
