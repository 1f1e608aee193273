/** The WordNet reader moved to @vus/wordnet (analyze-service reads it too); kept so that this service's modules and the wordnet bench keep their import. */
export * from '@vus/wordnet';
