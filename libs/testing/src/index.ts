// Filled in by the indexing-pipeline work (issue 4).
export {};
