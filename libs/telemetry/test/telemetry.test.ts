import { SpanKind, context, trace } from '@opentelemetry/api';
import { withCaller } from '@vus/core';
import { currentTraceparent, formatTraceparent, inSpan, parseTraceparent, producerTraceparent } from '../src';
import { tracingConfigured } from '../src/sdk';
import { recordSpans } from '../src/testing';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('traceparent', () => {
  it.each([
    [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true }],
    [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, spanId: SPAN, traceFlags: 0, isRemote: true }],
    [` 00-${TRACE}-${SPAN}-01 `, { traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true }],
    [`00-${'0'.repeat(32)}-${SPAN}-01`, undefined],
    [`00-${TRACE}-${'0'.repeat(16)}-01`, undefined],
    [`01-${TRACE}-${SPAN}-01`, undefined],
    [`00-${TRACE.toUpperCase()}-${SPAN}-01`, undefined],
    ['garbage', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j parses to %j', (header, expected) => {
    expect(parseTraceparent(header)).toEqual(expected);
  });

  it('formats what it parses', () => {
    const header = `00-${TRACE}-${SPAN}-01`;
    expect(formatTraceparent(parseTraceparent(header)!)).toBe(header);
  });
});

describe('tracingConfigured', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console,none' }, true],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
  ])('%j → %s', (env, expected) => {
    expect(tracingConfigured(env)).toBe(expected);
  });
});

describe('without an SDK (tracing off)', () => {
  it('passes an incoming traceparent on unchanged', async () => {
    const header = `00-${TRACE}-${SPAN}-01`;
    const seen = await inSpan('server', { kind: SpanKind.SERVER, parent: header }, () =>
      inSpan('inner', {}, async () => currentTraceparent()),
    );
    expect(seen).toBe(header);
    expect(await inSpan('event', { parent: header }, async () => producerTraceparent('vus.topic'))).toBe(header);
  });

  it('falls back to the caller context outside any span', () => {
    const header = `00-${TRACE}-${SPAN}-01`;
    expect(withCaller({ traceparent: header }, () => currentTraceparent())).toBe(header);
    expect(currentTraceparent()).toBeUndefined();
  });
});

describe('with spans recorded', () => {
  it('makes children of the active span and of a given parent, and roots with null', async () => {
    const recorded = recordSpans();
    try {
      const header = `00-${TRACE}-${SPAN}-01`;
      await inSpan('continued', { parent: header }, async () => {
        await inSpan('child', {}, async () => undefined);
      });
      await inSpan('outer', {}, () => inSpan('fresh', { parent: null }, async () => undefined));
      await expect(inSpan('failing', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      const byName = new Map(recorded.spans().map((s) => [s.name, s]));
      expect(byName.get('continued')!.spanContext().traceId).toBe(TRACE);
      expect(byName.get('continued')!.parentSpanContext?.spanId).toBe(SPAN);
      expect(byName.get('child')!.parentSpanContext?.spanId).toBe(byName.get('continued')!.spanContext().spanId);
      expect(byName.get('fresh')!.parentSpanContext).toBeUndefined();
      expect(byName.get('failing')!.status).toMatchObject({ code: 2, message: 'boom' });
      expect(byName.get('failing')!.events.map((e) => e.name)).toEqual(['exception']);
      expect(trace.getSpan(context.active())).toBeUndefined();
    } finally {
      await recorded.stop();
    }
  });
});
