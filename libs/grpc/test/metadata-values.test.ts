import { plainMetadataValues } from '@vus/grpc';
import type { MetadataValue } from '@vus/grpc/types/common/v1/MetadataValue';

const wire = (values: Record<string, Partial<MetadataValue>>) => values as Record<string, MetadataValue>;

describe('plainMetadataValues', () => {
  it('reads each kind', () => {
    const values = wire({
      s: { kind: 'string_value', string_value: 'x' },
      n: { kind: 'number_value', number_value: 2 },
      b: { kind: 'bool_value', bool_value: true },
      z: { kind: 'null_value', null_value: true },
    });
    expect(plainMetadataValues('user_metadata', values, { allowNull: true })).toEqual({ s: 'x', n: 2, b: true, z: null });
  });

  it.each([
    ['a value with no kind', wire({ k: {} }), true, 'The user_metadata.k parameter is invalid. The value has no kind.'],
    [
      'null where not allowed',
      wire({ k: { kind: 'null_value', null_value: true } }),
      false,
      'The user_metadata.k parameter is invalid. null is not allowed here.',
    ],
  ])('refuses %s', (_case, values, allowNull, message) => {
    expect(() => plainMetadataValues('user_metadata', values, { allowNull: allowNull as false })).toThrow(message);
  });
});
