import { hasPayloadSchema } from './payloads';

/** What the registry reads of a consumer: its group and the event types it takes. */
export interface ConsumerDeclaration {
  group: string;
  types: readonly string[];
}

/**
 * The consumers a service declares, checked before any subscribes: an event type no payload schema
 * describes (EVENT_PAYLOADS) fails the boot with every such consumer named, instead of a handler
 * that could never read what it is given.
 */
export function checkConsumers<C extends ConsumerDeclaration>(consumers: readonly C[]): readonly C[] {
  const undescribed = consumers.flatMap((consumer) =>
    consumer.types.filter((type) => !hasPayloadSchema(type)).map((type) => `${consumer.group} consumes ${type}`),
  );
  if (undescribed.length > 0) {
    throw new Error(`no event schema describes what these consumers take: ${undescribed.join('; ')}`);
  }
  return consumers;
}
