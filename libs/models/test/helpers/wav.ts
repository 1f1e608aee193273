/** A 16-bit PCM WAV of the samples (-1…1), the same samples on every channel. */
export function wav(samples: Float32Array, rate: number, channels: number): Buffer {
  const data = Buffer.alloc(samples.length * channels * 2);
  samples.forEach((s, i) => {
    for (let c = 0; c < channels; c++) data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), (i * channels + c) * 2);
  });
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
