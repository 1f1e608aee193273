/** Query and label expansion moved to @vus/wordnet (embed-service's concept embedding resolves words the same way); kept so this service's modules, tests and the wordnet bench keep their import. */
export * from '@vus/wordnet';
