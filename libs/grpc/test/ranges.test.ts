import { fromNumberRange, fromRecordFilter, fromTimeRange } from '@vus/grpc';

describe('proto ranges as bounds', () => {
  it.each([
    [null, undefined],
    [undefined, undefined],
    [
      { gte: 1, lt: 10 },
      { gte: 1, lte: undefined, gt: undefined, lt: 10 },
    ],
    [{ gt: 0 }, { gte: undefined, lte: undefined, gt: 0, lt: undefined }],
  ])('NumberRange %j', (range, bounds) => {
    expect(fromNumberRange(range)).toEqual(bounds);
  });

  it.each([
    [null, undefined],
    [
      { gte: { seconds: '1767225600', nanos: 500_000_000 } },
      { gte: new Date('2026-01-01T00:00:00.500Z'), lte: undefined, gt: undefined, lt: undefined },
    ],
    [{ lt: { seconds: 0, nanos: 0 } }, { gte: undefined, lte: undefined, gt: undefined, lt: new Date(0) }],
  ])('TimeRange %j', (range, bounds) => {
    expect(fromTimeRange(range as Parameters<typeof fromTimeRange>[0])).toEqual(bounds);
  });
});

describe('fromRecordFilter', () => {
  it.each([
    [{ ids: [] }, { ids: undefined, createdAt: undefined, updatedAt: undefined }],
    [
      { ids: ['a', 'b'], updated_at: { lt: { seconds: 0, nanos: 0 } } },
      { ids: ['a', 'b'], createdAt: undefined, updatedAt: { gte: undefined, lte: undefined, gt: undefined, lt: new Date(0) } },
    ],
  ])('%j', (request, filter) => {
    expect(fromRecordFilter(request as Parameters<typeof fromRecordFilter>[0])).toEqual(filter);
  });
});
