import { z } from 'zod';
import { ConfigError, envBoolean, envPort, loadConfig, parseInput, isApiError } from '../src';

describe('loadConfig', () => {
  const schema = z.object({ DATABASE_URL: z.string().url(), PORT: envPort.default(8080), DEBUG: envBoolean.default(false) });

  it('applies defaults and coerces', () => {
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://x/y', DEBUG: 'TRUE' })).toEqual({
      DATABASE_URL: 'postgres://x/y',
      PORT: 8080,
      DEBUG: true,
    });
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig(schema, { PORT: 'eighty', DEBUG: 'maybe' });
      throw new Error('expected an error');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/DATABASE_URL/);
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/DEBUG/);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(schema, { DATABASE_URL: 'postgres://x/y', PORT: '' }).PORT).toBe(8080);
  });

  it('freezes the result', () => {
    expect(Object.isFrozen(loadConfig(schema, { DATABASE_URL: 'postgres://x/y' }))).toBe(true);
  });
});

describe('parseInput', () => {
  const schema = z.object({ index_name: z.string(), engines: z.array(z.object({ engine_name: z.string() })) });

  it.each([
    [{}, 'parameter_not_provided', 'index_name'],
    [{ index_name: 5, engines: [] }, 'parameter_invalid', 'index_name'],
    [{ index_name: 'a', engines: [{}] }, 'parameter_not_provided', 'engines.0.engine_name'],
    [{ index_name: 'a', engines: 'x' }, 'parameter_invalid', 'engines'],
    [null, 'parameter_invalid', 'body'],
  ])('%p → %s naming %s', (input, code, param) => {
    try {
      parseInput(schema, input);
      throw new Error('expected an error');
    } catch (error) {
      expect(isApiError(error) && error.code).toBe(code);
      expect(isApiError(error) && error.message).toContain(param);
    }
  });
});
