import { checkConsumers, EVENT_PAYLOADS, EVENT_TYPES, payloadOf, type EventType } from '../src';

const videoDeleted = { index_id: 'i1', video_id: 'v1', blob_keys: ['uploads/v1.mp4'], reason: 'video_deleted' };
const statusChanged = { task_id: 't1', index_id: 'i1', video_id: 'v1', status: 'ready', previous_status: 'indexing', failure: null };
const usage = { kind: 'media_seconds', quantity: 59.2, idempotency_key: 'task-1/media', occurred_at: '2026-11-28T02:00:00.000Z' };
const analyzeTask = { task_id: 't1', status: 'ready', custom_id: null, batch_id: null, message: null };
const taskCreated = { task_id: 't1', index_id: 'i1', video_id: 'v1', status: 'pending' };

/** Each event type with payloads its consumers take and payloads they skip, and why. */
const cases: { type: EventType; valid: Record<string, object>; invalid: Record<string, unknown> }[] = [
  {
    type: 'index.created',
    valid: { 'the index id': { index_id: 'i1' }, 'extra fields pass through': { index_id: 'i1', name: 'n' } },
    invalid: { 'no index id': {}, 'a numeric index id': { index_id: 7 } },
  },
  {
    type: 'index.deleted',
    valid: { 'the index id': { index_id: 'i1' } },
    invalid: { 'no index id': {}, null: null },
  },
  {
    type: 'video.deleted',
    valid: {
      'as index-service writes it': videoDeleted,
      'no blob keys': { ...videoDeleted, blob_keys: [] },
      'an index deleted': { ...videoDeleted, reason: 'index_deleted' },
    },
    invalid: {
      'no video id': { ...videoDeleted, video_id: undefined },
      'no index id': { ...videoDeleted, index_id: undefined },
      'blob keys not a list': { ...videoDeleted, blob_keys: 'uploads/v1.mp4' },
      'a blob key not a string': { ...videoDeleted, blob_keys: ['a', 3] },
      'an unknown reason': { ...videoDeleted, reason: 'renamed' },
      'an array': [videoDeleted],
    },
  },
  {
    type: 'task.created',
    valid: {
      'as task-service writes it': taskCreated,
      'with a failure': { ...taskCreated, status: 'failed', failure: { code: 'c', message: 'm' } },
    },
    invalid: { 'an unknown status': { ...taskCreated, status: 'done' }, 'no task id': { ...taskCreated, task_id: undefined } },
  },
  {
    type: 'task.status-changed',
    valid: {
      'as task-service writes it': statusChanged,
      'the first status': { ...statusChanged, status: 'pending', previous_status: null },
      'without a failure': { ...statusChanged, failure: undefined },
      'a failure': { ...statusChanged, status: 'failed', failure: { code: 'video_file_broken', message: 'The video file is broken.' } },
    },
    invalid: {
      'an unknown status': { ...statusChanged, status: 'done' },
      'no status': { ...statusChanged, status: undefined },
      'a numeric task id': { ...statusChanged, task_id: 1 },
      'an unknown previous status': { ...statusChanged, previous_status: 'done' },
      'a failure without a message': { ...statusChanged, failure: { code: 'c' } },
    },
  },
  {
    type: 'analyze-task.status-changed',
    valid: {
      'as analyze-service writes it': analyzeTask,
      'failed, in a batch, with a custom id': { ...analyzeTask, status: 'failed', batch_id: 'b1', custom_id: 'c-1', message: 'No engine.' },
    },
    invalid: {
      'a status that is not an end': { ...analyzeTask, status: 'processing' },
      'no task id': { ...analyzeTask, task_id: undefined },
      'custom_id absent rather than null': { ...analyzeTask, custom_id: undefined },
    },
  },
  {
    type: 'usage.recorded',
    valid: {
      'media seconds': usage,
      'with a category': { ...usage, category: 'embed_video' },
      'zero output tokens': { ...usage, kind: 'output_tokens', quantity: 0 },
      'a 200-character key': { ...usage, idempotency_key: 'k'.repeat(200) },
    },
    invalid: {
      'an unknown kind': { ...usage, kind: 'gpu_seconds' },
      'a negative quantity': { ...usage, quantity: -1 },
      'an infinite quantity': { ...usage, quantity: Infinity },
      NaN: { ...usage, quantity: NaN },
      'a quantity as a string': { ...usage, quantity: '59' },
      'an empty key': { ...usage, idempotency_key: '' },
      'a 201-character key': { ...usage, idempotency_key: 'k'.repeat(201) },
      'not a date': { ...usage, occurred_at: 'yesterday' },
      'a null category': { ...usage, category: null },
      'a 41-character category': { ...usage, category: 'c'.repeat(41) },
    },
  },
];

describe('event payload schemas', () => {
  it('describe every event type', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    expect(cases.map((c) => c.type).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
  });

  describe.each(cases)('$type', ({ type, valid, invalid }) => {
    it.each(Object.entries(valid))('takes %s', (_, payload) => {
      expect(payloadOf(type, { payload: payload as Record<string, unknown> })).toEqual(payload);
    });
    it.each(Object.entries(invalid))('skips %s', (_, payload) => {
      expect(payloadOf(type, { payload: payload as Record<string, unknown> })).toBeUndefined();
    });
  });
});

describe('checkConsumers', () => {
  const handler = async () => 'done' as const;

  it('passes consumers of described events through', () => {
    const consumers = [{ group: 'a', types: ['video.deleted', 'usage.recorded'] as EventType[], handler }];
    expect(checkConsumers(consumers)).toBe(consumers);
  });

  it('refuses, naming each, the consumers of an event no schema describes', () => {
    const consumers = [
      { group: 'a', types: ['video.deleted'], handler },
      { group: 'b', types: ['video.renamed', 'task.created'], handler },
      { group: 'c', types: ['__proto__'], handler },
    ];
    expect(() => checkConsumers(consumers)).toThrow(
      'no event schema describes what these consumers take: b consumes video.renamed; c consumes __proto__',
    );
  });
});
