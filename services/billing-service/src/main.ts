// Wiring comes with the service's first feature.
export {};
