import { ApiError } from '@vus/core';
import { recordModelCall } from '@vus/telemetry';
import type { Capability, CapabilityTypes, Disposable, ProviderStatus } from './types';

/**
 * How to get one provider of one capability. `check` is cheap (are the files there?) and never
 * loads weights; `load` is called at most once, on first use.
 */
export interface ProviderDefinition<C extends Capability = Capability> {
  readonly capability: C;
  readonly name: string;
  readonly model: string;
  readonly kind: 'bundled' | 'downloadable';
  /** Why the provider cannot load here, or undefined when it can. */
  check(): Promise<string | undefined>;
  load(): Promise<CapabilityTypes[C] & Partial<Disposable>>;
}

type Loaded = CapabilityTypes[Capability] & Partial<Disposable>;

interface Slot {
  readonly definition: ProviderDefinition;
  status: ProviderStatus;
  loading?: Promise<Loaded | undefined>;
  instance?: Loaded;
  /** Its load failed: it stays unavailable (a probe finding its files does not make it available again). */
  failed?: true;
}

/**
 * Holds the providers of every capability, loads each lazily once, and says which are loaded and
 * why the others are not (for `/health` and the engines listing). Several providers may serve one
 * capability; the first that loads wins.
 */
export class ModelRegistry {
  private readonly slots: Slot[];

  constructor(definitions: readonly ProviderDefinition[]) {
    this.slots = definitions.map((definition) => ({
      definition,
      status: statusOf(definition, 'available'),
    }));
  }

  /** Checks every provider not loaded yet and not failed (files present?) without loading weights. */
  async probe(): Promise<ProviderStatus[]> {
    await Promise.all(
      this.slots
        .filter((slot) => slot.instance === undefined && slot.loading === undefined && !slot.failed)
        .map(async (slot) => {
          const reason = await slot.definition.check().catch((error: unknown) => withoutPaths(describe(error)));
          slot.status = statusOf(slot.definition, reason === undefined ? 'available' : 'unavailable', reason);
        }),
    );
    return this.status();
  }

  /** The last known state of every provider, in definition order. */
  status(): ProviderStatus[] {
    return this.slots.map((slot) => slot.status);
  }

  /** The first provider of the capability that loads; undefined when none can (callers skip the extractor). */
  async find<C extends Capability>(capability: C): Promise<CapabilityTypes[C] | undefined> {
    for (const slot of this.slots.filter((s) => s.definition.capability === capability)) {
      const instance = await this.loadSlot(slot);
      if (instance) return instance as CapabilityTypes[C];
    }
    return undefined;
  }

  /** Like `find`, but a missing provider is a `model_unavailable` ApiError that carries the reasons. */
  async get<C extends Capability>(capability: C): Promise<CapabilityTypes[C]> {
    const instance = await this.find(capability);
    if (instance) return instance;
    const reasons = this.status()
      .filter((s) => s.capability === capability)
      .map((s) => `${s.provider}: ${s.reason ?? 'not configured'}`);
    throw new ApiError(
      'model_unavailable',
      `No ${capability.replace('_', ' ')} model is available. ${reasons.length > 0 ? reasons.join('; ') : 'No provider is configured.'}`,
      { capability },
    );
  }

  /** Frees every loaded provider; the registry can load them again afterwards. */
  async dispose(): Promise<void> {
    await Promise.all(
      this.slots.map(async (slot) => {
        const instance = slot.instance ?? (await slot.loading);
        slot.instance = undefined;
        slot.loading = undefined;
        if (instance?.dispose) await instance.dispose();
        if (slot.status.state === 'loaded') slot.status = statusOf(slot.definition, 'available');
      }),
    );
  }

  private loadSlot(slot: Slot): Promise<Loaded | undefined> {
    if (slot.instance) return Promise.resolve(slot.instance);
    if (slot.status.state === 'unavailable') return Promise.resolve(undefined);
    slot.loading ??= this.loadOnce(slot);
    return slot.loading;
  }

  private async loadOnce(slot: Slot): Promise<Loaded | undefined> {
    const { definition } = slot;
    try {
      const reason = await definition.check();
      if (reason !== undefined) {
        slot.status = statusOf(definition, 'unavailable', reason);
        return undefined;
      }
      slot.instance = measured(await definition.load(), definition.name);
      slot.status = statusOf(definition, 'loaded');
      return slot.instance;
    } catch (error) {
      // A load failure is remembered: retrying a broken model on every frame would only burn CPU.
      slot.status = statusOf(definition, 'unavailable', `failed to load: ${withoutPaths(describe(error))}`);
      slot.failed = true;
      return undefined;
    } finally {
      slot.loading = undefined;
    }
  }
}

/**
 * The loaded model with each of its async calls timed (vus.model.duration by provider and call,
 * e.g. `coco-ssd` / `detectObjects`): model latency per provider, whoever calls it. The methods
 * are wrapped on the instance itself, so callers still get the very object the provider made.
 */
function measured(instance: Loaded, provider: string): Loaded {
  const target = instance as unknown as Record<string | symbol, unknown>;
  // A model shared by two registries (a cached instance) is timed once.
  if (typeof instance !== 'object' || target[MEASURED] || !Object.isExtensible(instance)) return instance;
  target[MEASURED] = true;
  for (const name of methodNames(instance)) {
    const method = target[name] as (...args: unknown[]) => unknown;
    target[name] = function (this: unknown, ...args: unknown[]) {
      const started = process.hrtime.bigint();
      const result = method.apply(this, args);
      if (!(result instanceof Promise)) return result;
      const record = (outcome: 'ok' | 'error') => recordModelCall(provider, name, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      return result.then(
        (resolved: unknown) => {
          record('ok');
          return resolved;
        },
        (error: unknown) => {
          record('error');
          throw error;
        },
      );
    };
  }
  return instance;
}

/**
 * The methods of a model, `dispose` aside: its class's (never its fields: a field may hold a callable
 * model of a library, which is not a call of ours), or a plain object's own functions.
 */
function methodNames(object: object): string[] {
  const names = new Set<string>();
  const plain = Object.getPrototypeOf(object) === Object.prototype;
  let o: object | null = plain ? object : (Object.getPrototypeOf(object) as object | null);
  for (; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && name !== 'dispose' && typeof Object.getOwnPropertyDescriptor(o, name)?.value === 'function')
        names.add(name);
    }
  }
  return [...names];
}

const MEASURED = Symbol('vus.model.measured');

function statusOf(definition: ProviderDefinition, state: ProviderStatus['state'], reason?: string): ProviderStatus {
  return {
    capability: definition.capability,
    provider: definition.name,
    model: definition.model,
    kind: definition.kind,
    state,
    ...(reason === undefined ? {} : { reason }),
  };
}

/**
 * The message with each absolute file path cut to its last part: a runtime's load error names the
 * file it read (`/srv/models/Xenova/…/model.onnx`), and a provider's reason reaches API users.
 */
export function withoutPaths(message: string): string {
  return message.replace(/(?<![\w.:/-])(?:[A-Za-z]:)?[/\\](?:[^\s/\\'"`()]+[/\\])+([^\s/\\'"`()]*)/g, '$1');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
