import type { CanonicalOption, EngineFamily } from '@vus/domain';

/**
 * The engine (model) catalogue: which engine allows which of the canonical options (@vus/core's
 * vocabulary). Pure data and rules.
 */
export { CANONICAL_OPTIONS, isEngineFamily, type EngineFamily } from '@vus/domain';
export type EngineOption = CanonicalOption;

export interface EngineSpec {
  id: string;
  family: EngineFamily;
  allowedOptions: readonly EngineOption[];
  /** URL versions whose engine listing shows this engine. */
  apiVersions: readonly string[];
  releasedAt: Date;
}

const MARENGO_OPTIONS: readonly EngineOption[] = ['visual', 'conversation', 'text_in_video', 'logo'];
const PEGASUS_OPTIONS: readonly EngineOption[] = ['visual', 'conversation'];

export const ENGINES: readonly EngineSpec[] = [
  {
    id: 'marengo2.5',
    family: 'marengo',
    allowedOptions: MARENGO_OPTIONS,
    apiVersions: ['v1.1', 'v1.2'],
    releasedAt: new Date('2023-06-01T00:00:00Z'),
  },
  {
    id: 'marengo2.6',
    family: 'marengo',
    allowedOptions: MARENGO_OPTIONS,
    apiVersions: ['v1.2'],
    releasedAt: new Date('2024-03-01T00:00:00Z'),
  },
  {
    id: 'marengo2.7',
    family: 'marengo',
    allowedOptions: MARENGO_OPTIONS,
    apiVersions: ['v1.2', 'v1.3'],
    releasedAt: new Date('2024-12-01T00:00:00Z'),
  },
  {
    id: 'marengo3.0',
    family: 'marengo',
    allowedOptions: MARENGO_OPTIONS,
    apiVersions: ['v1.3'],
    releasedAt: new Date('2025-09-01T00:00:00Z'),
  },
  {
    id: 'pegasus1',
    family: 'pegasus',
    allowedOptions: PEGASUS_OPTIONS,
    apiVersions: ['v1.2'],
    releasedAt: new Date('2023-10-01T00:00:00Z'),
  },
  {
    id: 'pegasus1.1',
    family: 'pegasus',
    allowedOptions: PEGASUS_OPTIONS,
    apiVersions: ['v1.2'],
    releasedAt: new Date('2024-06-01T00:00:00Z'),
  },
  {
    id: 'pegasus1.2',
    family: 'pegasus',
    allowedOptions: PEGASUS_OPTIONS,
    apiVersions: ['v1.2', 'v1.3'],
    releasedAt: new Date('2025-01-01T00:00:00Z'),
  },
];

export const ADDONS = ['thumbnail'] as const;

export function findEngine(id: string): EngineSpec | undefined {
  return ENGINES.find((engine) => engine.id === id);
}
