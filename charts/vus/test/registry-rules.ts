/** The chart's values key of a registered service: its name in camelCase (index-service -> indexService). */
export function valuesKeyOf(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
